/** Vite's `?raw` imports (a file's text), which test files use to read repository files the same way in Node and in workerd. */
declare module '*?raw' {
  const text: string;
  export default text;
}

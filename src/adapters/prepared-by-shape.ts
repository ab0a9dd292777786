/**
 * Statements of a read whose filters vary, built and prepared once per shape (which filters are
 * given) instead of once per call: the filters' values go in as placeholders, so every call of a
 * shape runs the same SQL. Drizzle building a query costs 20-50 KB of garbage a call, more than
 * running it; the shapes are a few flags, so the memo is bounded by their combinations.
 */
export function preparedByShape<Shape extends number, Statement>(shapeCount: number, build: (shape: Shape) => Statement): (shape: Shape) => Statement {
  const statements = new Map<Shape, Statement>();
  return (shape) => {
    if (!Number.isInteger(shape) || shape < 0 || shape >= shapeCount) throw new RangeError(`no such statement shape: ${shape}`);
    let statement = statements.get(shape);
    if (statement === undefined) {
      statement = build(shape);
      statements.set(shape, statement);
    }
    return statement;
  };
}

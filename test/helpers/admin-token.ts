/** The admin token every test service is started with: runtime-free, so the Workers harness shares it. */
export const ADMIN_TOKEN = 'test-admin-token-0123456789';

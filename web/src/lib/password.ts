// The API refuses a shorter password (src/accounts/passwords.ts); the forms say so before it does.
export const PASSWORD_MIN = 10;
export const PASSWORD_HINT = `At least ${PASSWORD_MIN} characters`;

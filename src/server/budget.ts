/** The request's time budget lives with the use cases (app/budget.ts): every surface holds its work to it. */
export { BUDGET_GRACE_MS, withinBudget } from '../app/budget.js';

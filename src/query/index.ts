/** FIQL (q=) → Filter → predicate / index plan; paging and sorting for the Management API lists. */
export * from './fields.js';
export * from './filter.js';
export * from './glob.js';
export * from './list.js';
export * from './operands.js';
export * from './paging.js';
export * from './plan.js';
export * from './predicate.js';
export * from './run.js';
export * from './sort.js';
export * from './terms.js';

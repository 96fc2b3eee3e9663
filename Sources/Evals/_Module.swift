// Evals module.

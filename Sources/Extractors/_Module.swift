// Extractors module.

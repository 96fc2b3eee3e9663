// JobsKit module.

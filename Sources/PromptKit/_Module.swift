// PromptKit module.

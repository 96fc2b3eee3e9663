// AgentRuntime module.

"""Adapters that put memoryos where agent frameworks already look for memory.

Each module imports its framework lazily through an optional extra, so `import memoryos` never
needs them: `memoryos[langgraph]` for `langgraph.MemoryOSStore`, `memoryos[openai-agents]` for
`openai_agents.MemoryOSSession`. The scope is always the host's choice (DESIGN §9).
"""

"""Framework integrations: each module imports its framework only when it is imported itself
(`import salience` never loads LangGraph, the Agents SDK, Anthropic or OpenTelemetry).

- `salience.integrations.langgraph`: `SalienceStore`, a LangGraph `BaseStore` on a mind
- `salience.integrations.openai_agents`: `SalienceSession`, an OpenAI Agents SDK session
- `salience.integrations.claude_memory`: a backend for Claude's `memory` tool
- `salience.integrations.otel`: OpenTelemetry spans (`gen_ai.memory.*`), no-op without the SDK

See docs/integrations.md.
"""

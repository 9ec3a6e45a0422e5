"""A real LangGraph graph reading and writing memories through `SalienceStore`, and LangMem's
memory tools on it. The LLM is langchain_core's fake chat model (scripted replies, tool calls
included); everything else is the real framework and a real mind on disk."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypedDict

import pytest

pytest.importorskip("langgraph")
pytest.importorskip("langchain_core")

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore
from pydantic import Field

from salience import Config, Mind
from salience.integrations.langgraph import SalienceStore


class RecordingModel(FakeMessagesListChatModel):
    """Scripted replies; remembers every prompt it was given; accepts tools."""

    prompts: list[list[BaseMessage]] = Field(default_factory=list)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.prompts.append(list(messages))
        return super()._generate(messages, *args, **kwargs)

    def bind_tools(self, tools: Any, **kwargs: Any) -> RecordingModel:
        return self


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SalienceStore]:
    with Mind.open("graph", config=Config(home=tmp_path / "home", embedder="hash")) as m:
        yield SalienceStore(m, index={"fields": ["text"]})


class State(TypedDict):
    user_id: str
    message: str
    reply: str


def test_a_graph_remembers_and_recalls_through_the_store(store: SalienceStore) -> None:
    model = RecordingModel(responses=[
        AIMessage("Noted."), AIMessage("Noted."), AIMessage("You are allergic to penicillin.")
    ])

    def remember(state: State, *, store: BaseStore) -> dict[str, Any]:
        if state["message"].startswith("Remember:"):
            n = len(store.search(("memories", state["user_id"]), limit=100))
            store.put(("memories", state["user_id"]), f"m{n}", {"text": state["message"][9:].strip()})
        return {}

    def respond(state: State, *, store: BaseStore) -> dict[str, Any]:
        found = store.search(("memories", state["user_id"]), query=state["message"], limit=3)
        notes = "\n".join(i.value["text"] for i in found)
        reply = model.invoke([HumanMessage(f"Memories:\n{notes}\n\nUser: {state['message']}")])
        return {"reply": reply.content}

    builder = StateGraph(State)
    builder.add_node("remember", remember)
    builder.add_node("respond", respond)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "respond")
    builder.add_edge("respond", END)
    graph = builder.compile(store=store)

    graph.invoke({"user_id": "u1", "message": "Remember: I am allergic to penicillin.", "reply": ""})
    graph.invoke({"user_id": "u2", "message": "Remember: I love green tea.", "reply": ""})
    out = graph.invoke({"user_id": "u1", "message": "Which antibiotics should I avoid? penicillin?", "reply": ""})

    assert out["reply"] == "You are allergic to penicillin."
    last_prompt = model.prompts[-1][0].content
    assert "I am allergic to penicillin." in last_prompt
    assert "green tea" not in last_prompt  # u2's memories live in another namespace
    assert store.list_namespaces(prefix=("memories",)) == [("memories", "u1"), ("memories", "u2")]


@pytest.mark.filterwarnings("ignore:create_react_agent has been moved")
def test_langmem_manage_and_search_tools_on_the_store(store: SalienceStore) -> None:
    langmem = pytest.importorskip("langmem")
    from langgraph.prebuilt import create_react_agent

    namespace = ("memories", "{langgraph_user_id}")
    manage = langmem.create_manage_memory_tool(namespace=namespace)
    search = langmem.create_search_memory_tool(namespace=namespace)
    model = RecordingModel(responses=[
        AIMessage("", tool_calls=[{
            "name": "manage_memory", "id": "c1",
            "args": {"content": "The user's dog is called Rex.", "action": "create"},
        }]),
        AIMessage("", tool_calls=[{"name": "search_memory", "id": "c2", "args": {"query": "dog Rex"}}]),
        AIMessage("Your dog is Rex."),
    ])
    agent = create_react_agent(model, tools=[manage, search], store=store)
    cfg = {"configurable": {"langgraph_user_id": "u7"}}
    out = agent.invoke({"messages": [HumanMessage("My dog is called Rex.")]}, config=cfg)

    tool_msgs = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert [m.name for m in tool_msgs] == ["manage_memory", "search_memory"]
    assert "Rex" in tool_msgs[1].content  # the search found what the manage tool stored
    items = store.search(("memories", "u7"))
    assert len(items) == 1 and "Rex" in str(items[0].value)
    assert out["messages"][-1].content == "Your dog is Rex."

    # update and delete by id, as LangMem's tool does them (outside a graph: store given)
    mem_id = items[0].key
    manage = langmem.create_manage_memory_tool(namespace=namespace, store=store)
    manage.invoke({"content": "The user's dog is called Max.", "id": mem_id, "action": "update"}, config=cfg)
    assert "Max" in str(store.get(("memories", "u7"), mem_id).value)
    manage.invoke({"id": mem_id, "action": "delete"}, config=cfg)
    assert store.search(("memories", "u7")) == []

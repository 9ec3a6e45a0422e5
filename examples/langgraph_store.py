"""A LangGraph graph whose nodes remember and recall through Salience (`SalienceStore`),
and LangMem's memory tools on the same store.

    pip install 'salience[langgraph,langmem]'
    python examples/langgraph_store.py
"""

from __future__ import annotations

from typing import Any, TypedDict

from _home import example_config
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore

from salience import Mind
from salience.integrations.langgraph import SalienceStore


class State(TypedDict):
    user_id: str
    message: str
    recalled: list[str]


def remember(state: State, *, store: BaseStore) -> dict[str, Any]:
    if state["message"].lower().startswith("remember"):
        ns = ("memories", state["user_id"])
        store.put(ns, f"m{len(store.search(ns, limit=1000))}", {"text": state["message"]})
    return {}


def recall(state: State, *, store: BaseStore) -> dict[str, Any]:
    found = store.search(("memories", state["user_id"]), query=state["message"], limit=3)
    return {"recalled": [item.value["text"] for item in found]}


def main() -> None:
    with Mind.open("langgraph-example", config=example_config()) as mind:
        store = SalienceStore(mind, index={"fields": ["text"]})
        builder = StateGraph(State)
        builder.add_node("remember", remember)
        builder.add_node("recall", recall)
        builder.add_edge(START, "remember")
        builder.add_edge("remember", "recall")
        builder.add_edge("recall", END)
        graph = builder.compile(store=store)
        graph.invoke({"user_id": "ana", "message": "Remember: my flight to Oslo leaves at 7am.",
                      "recalled": []})
        out = graph.invoke({"user_id": "ana", "message": "When does my Oslo flight leave?",
                            "recalled": []})
        print("recalled:", out["recalled"])
        assert any("Oslo" in r for r in out["recalled"])

        try:
            from langmem import create_manage_memory_tool, create_search_memory_tool
        except ImportError:
            return
        manage = create_manage_memory_tool(namespace=("memories", "ana"), store=store)
        search = create_search_memory_tool(namespace=("memories", "ana"), store=store)
        manage.invoke({"content": "Ana prefers aisle seats.", "action": "create"})
        print("langmem search:", search.invoke({"query": "seat preference"}))
        # the items are memories of the mind too
        print("mind.search:", [h.memory.content for h in mind.search("aisle seat", limit=2)])


if __name__ == "__main__":
    main()

"""`SalienceMemoryTool`: Claude's memory tool commands on a mind, through the `anthropic`
package's own tool classes — commands parsed by the SDK from the JSON Claude sends, and one
conversation driven by the SDK's tool runner against a local fake Messages API server (the LLM
is the fake; client, runner, tool and mind are real)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

pytest.importorskip("anthropic")

import anthropic
from anthropic.lib.tools._beta_functions import ToolError

from salience import Mind
from salience.integrations.claude_memory import SalienceMemoryTool, clean_path


@pytest.fixture
def tool(backend_mind: Mind) -> SalienceMemoryTool:
    return SalienceMemoryTool(backend_mind)


def call(tool: SalienceMemoryTool, **command: Any) -> Any:
    return tool.call(command)  # the SDK turns Claude's JSON into its command types


def test_the_tool_declares_itself_as_claudes_memory_tool(tool: SalienceMemoryTool) -> None:
    assert tool.to_dict() == {"type": "memory_20250818", "name": "memory"}


def test_create_view_edit_and_versions(tool: SalienceMemoryTool) -> None:
    assert call(tool, command="create", path="/memories/prefs.md",
                file_text="# Preferences\n- coffee: black\n") == (
        "File created successfully at: /memories/prefs.md")
    with pytest.raises(ToolError, match="already exists"):
        call(tool, command="create", path="/memories/prefs.md", file_text="x")
    view = call(tool, command="view", path="/memories/prefs.md")
    assert view.splitlines()[0] == "Here's the content of /memories/prefs.md with line numbers:"
    assert view.splitlines()[2] == "     2\t- coffee: black"
    out = call(tool, command="str_replace", path="/memories/prefs.md",
               old_str="black", new_str="with oat milk")
    assert "has been edited" in out and "     2\t- coffee: with oat milk" in out
    call(tool, command="insert", path="/memories/prefs.md", insert_line=1,
         insert_text="- tea: green")
    ranged = call(tool, command="view", path="/memories/prefs.md", view_range=[2, 3])
    assert ranged.splitlines()[1:] == ["     2\t- tea: green", "     3\t- coffee: with oat milk"]
    assert tool.versions("/memories/prefs.md") == [
        "# Preferences\n- coffee: black\n",
        "# Preferences\n- coffee: with oat milk\n",
        "# Preferences\n- tea: green\n- coffee: with oat milk\n",
    ]
    current = tool.mind.search("oat milk coffee")[0].memory
    assert current.superseded_by is None and "tea: green" in current.content
    assert len(tool.mind.history(current.id)) == 3  # versioned through history
    with pytest.raises(ToolError, match="did not appear verbatim"):
        call(tool, command="str_replace", path="/memories/prefs.md", old_str="zzz", new_str="y")
    call(tool, command="create", path="/memories/dup.md", file_text="a\nb\na\n")
    with pytest.raises(ToolError, match=r"Multiple occurrences .* in lines: 1, 3"):
        call(tool, command="str_replace", path="/memories/dup.md", old_str="a", new_str="c")
    with pytest.raises(ToolError, match="Invalid `insert_line`"):
        call(tool, command="insert", path="/memories/dup.md", insert_line=99, insert_text="x")


def test_directories_delete_rename(tool: SalienceMemoryTool) -> None:
    call(tool, command="create", path="/memories/people/maya.md", file_text="Allergic to penicillin")
    call(tool, command="create", path="/memories/people/bob/notes.md", file_text="Likes jazz")
    call(tool, command="create", path="/memories/todo.md", file_text="")
    call(tool, command="create", path="/memories/.hidden", file_text="secret")
    listing = call(tool, command="view", path="/memories").splitlines()
    assert listing[0].startswith("Here're the files and directories up to 2 levels deep")
    names = [line.split("\t")[1] for line in listing[2:]]
    assert names == ["/memories/people/", "/memories/people/bob/", "/memories/people/maya.md",
                     "/memories/todo.md"]
    assert call(tool, command="view", path="/memories/todo.md").endswith("     1\t")
    assert call(tool, command="rename", old_path="/memories/people",
                new_path="/memories/contacts") == (
        "Successfully renamed /memories/people to /memories/contacts")
    assert "Allergic" in call(tool, command="view", path="/memories/contacts/maya.md")
    with pytest.raises(ToolError, match="does not exist"):
        call(tool, command="view", path="/memories/people/maya.md")
    with pytest.raises(ToolError, match="already exists"):
        call(tool, command="rename", old_path="/memories/todo.md", new_path="/memories/contacts")
    assert call(tool, command="delete", path="/memories/contacts") == (
        "Successfully deleted /memories/contacts")
    assert tool.search("penicillin") == [] or all(
        p != "/memories/contacts/maya.md" for p, _ in tool.search("penicillin"))
    with pytest.raises(ToolError, match="Cannot delete the /memories directory itself"):
        call(tool, command="delete", path="/memories")
    assert tool.clear_all_memory() == "All memory cleared" and tool.mind.count() == 0


@pytest.mark.parametrize("path", [
    "/memories/../etc/passwd", "/etc/passwd", "/memoriesX/a", "/memories/a\\..\\..\\b",
    "/memories/a\x00b", "memories/a", "/memories/a/../../x",
])
def test_paths_cannot_escape(tool: SalienceMemoryTool, path: str) -> None:
    with pytest.raises(ToolError):
        call(tool, command="create", path=path, file_text="x")
    assert tool.mind.count() == 0


def test_clean_path() -> None:
    assert clean_path("/memories/a/./b/../c.md") == "/memories/a/c.md"
    assert clean_path("/memories/") == "/memories"


class FakeMessagesAPI(BaseHTTPRequestHandler):
    """Scripted `POST /v1/messages` replies; records each request body."""

    replies: ClassVar[list[dict[str, Any]]] = []
    requests: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(body)
        content = type(self).replies.pop(0)
        out = json.dumps({
            "id": f"msg_{len(type(self).requests)}", "type": "message", "role": "assistant",
            "model": body["model"], "content": content["content"],
            "stop_reason": content["stop_reason"], "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5},
        }).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args: Any) -> None:
        pass


def test_a_conversation_through_the_sdk_tool_runner(tool: SalienceMemoryTool) -> None:
    FakeMessagesAPI.requests = []
    FakeMessagesAPI.replies = [
        {"stop_reason": "tool_use", "content": [{
            "type": "tool_use", "id": "toolu_1", "name": "memory",
            "input": {"command": "create", "path": "/memories/user.md",
                      "file_text": "The user's daughter Ana starts school in September.\n"},
        }]},
        {"stop_reason": "tool_use", "content": [{
            "type": "tool_use", "id": "toolu_2", "name": "memory",
            "input": {"command": "view", "path": "/memories"},
        }]},
        {"stop_reason": "end_turn", "content": [{"type": "text", "text": "Saved."}]},
    ]
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeMessagesAPI)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        client = anthropic.Anthropic(
            api_key="test", base_url=f"http://127.0.0.1:{server.server_port}", max_retries=0
        )
        runner = client.beta.messages.tool_runner(
            model="claude-test", max_tokens=256, tools=[tool],
            messages=[{"role": "user", "content": "Remember that Ana starts school in September."}],
        )
        final = runner.until_done()
    finally:
        server.shutdown()
        thread.join()
    assert final.content[0].text == "Saved."
    sent = FakeMessagesAPI.requests
    assert {"type": "memory_20250818", "name": "memory"} in sent[0]["tools"]
    texts = " ".join(
        json.dumps(b["content"]) for req in sent for m in req["messages"]
        if isinstance(m["content"], list) for b in m["content"] if b.get("type") == "tool_result"
    )
    assert "File created successfully at: /memories/user.md" in texts  # the tool's answers
    assert "52B\\t/memories/user.md" in texts  # went back to the model
    assert tool.search("when does Ana start school")[0][0] == "/memories/user.md"

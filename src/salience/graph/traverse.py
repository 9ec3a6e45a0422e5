"""Breadth-first traversal over the knowledge graph, as pure functions.

The graph is reached through a `neighbours` function (frontier ids → neighbour ids per id), so
the same BFS serves every backend and is trivial to test. Visited nodes are never expanded
twice, which makes every traversal cycle-safe and bounded by the number of reachable nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

NeighbourFn = Callable[[Sequence[str]], Mapping[str, Iterable[str]]]

MAX_DEPTH = 3  # design B §7.3 scores distances 0..3; deeper ones score 0


def bfs(starts: Iterable[str], neighbours: NeighbourFn, max_depth: int) -> dict[str, int]:
    """Distance (in hops) from the nearest of `starts` to every node within `max_depth`.

    Starts are at distance 0. Neighbours are visited in sorted order, so the result (a dict in
    discovery order) is deterministic. One `neighbours` call per level.
    """
    dist: dict[str, int] = {}
    for s in starts:
        dist.setdefault(s, 0)
    frontier = list(dist)
    for depth in range(1, max(0, max_depth) + 1):
        if not frontier:
            break
        adjacency = neighbours(frontier)
        nxt: list[str] = []
        for node in frontier:
            for n in sorted(set(adjacency.get(node, ()))):
                if n not in dist:
                    dist[n] = depth
                    nxt.append(n)
        frontier = nxt
    return dist


def closest_memory_distances(
    entity_distances: Mapping[str, int], links: Iterable[tuple[str, str]]
) -> dict[str, int]:
    """Memory id → the smallest distance of any entity it is linked to.

    `links` are (memory_id, entity_id) pairs; links to entities outside `entity_distances` are
    ignored. This is the `distances` mapping recall's contextual signal consumes.
    """
    out: dict[str, int] = {}
    for memory_id, entity_id in links:
        d = entity_distances.get(entity_id)
        if d is not None and d < out.get(memory_id, d + 1):
            out[memory_id] = d
    return out

"""The minds a backend holds and id prefixes (issue 19), on every backend: `list_minds`,
`require_mind` (MindNotFound naming close names), `drop_mind`, `Mind.open(create=False)`,
`MemoryFilter(id_prefix=...)` / `Mind.resolve_id`."""

from __future__ import annotations

import zlib

import pytest

from salience.errors import AmbiguousId, NotFound
from salience.mind import Mind
from salience.models import MemoryFilter
from salience.store.catalog import MindNotFound, drop_mind, list_minds, require_mind


@pytest.fixture
def names(request: pytest.FixtureRequest) -> tuple[str, str]:
    prefix = "c" + format(zlib.crc32(request.node.nodeid.encode()), "d")
    return f"{prefix}-alpha", f"{prefix}-beta"


def test_minds_listed_required_and_dropped(backend_config, names):
    alpha, beta = names
    with pytest.raises(MindNotFound):
        Mind.open(alpha, config=backend_config, create=False)
    assert alpha not in list_minds(backend_config)  # the failed read created nothing
    for name in names:
        with Mind.open(name, config=backend_config) as m:
            m.add(f"a memory of {name}")
    try:
        assert {alpha, beta} <= set(list_minds(backend_config))
        require_mind(backend_config, alpha)
        with pytest.raises(MindNotFound, match=alpha):  # the typo names the real mind
            require_mind(backend_config, alpha.replace("-alpha", "_alpah"))
        with Mind.open(alpha, config=backend_config, create=False) as m:
            assert m.count() == 1
    finally:
        drop_mind(backend_config, alpha)
        drop_mind(backend_config, beta)
    assert alpha not in list_minds(backend_config)
    with pytest.raises(MindNotFound):
        drop_mind(backend_config, alpha)


def test_id_prefixes(backend_config, names):
    m = Mind.open(names[0], config=backend_config)
    try:
        ids = m.add_many([f"memory number {i}" for i in range(5)])
        for mid in ids:  # 28 characters: the millisecond, the sequence and 48 random bits
            assert m.resolve_id(mid[:28]) == mid
            assert m.resolve_id(mid[:28].upper()) == mid
            assert m.resolve_id(mid) == mid
        rows = m.list(MemoryFilter(id_prefix=ids[3][:28], include_superseded=True))
        assert [r.id for r in rows] == [ids[3]]
        common = ids[0]
        while not all(i.startswith(common) for i in ids):
            common = common[:-1]
        with pytest.raises(AmbiguousId) as err:
            m.resolve_id(common)
        assert all(i in str(err.value) for i in ids)
        for missing in ("ffffffffffff", "not-hex"):
            with pytest.raises(NotFound):
                m.resolve_id(missing)
    finally:
        m.close()
        drop_mind(backend_config, names[0])

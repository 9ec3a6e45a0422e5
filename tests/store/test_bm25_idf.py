"""`store.bm25.idf` under concurrent writers: the row count and a term's hits are read at
different moments (CI: 8 writers on PostgreSQL raised `math domain error` mid-search)."""

from __future__ import annotations

import math

from salience.store.bm25 import idf


def test_idf_when_a_term_has_more_hits_than_the_row_count_read_before() -> None:
    assert idf(10, 12) == 1e-6  # the term is in every row: no weight, and no error
    assert idf(100, 1) == math.log(99.5 / 1.5)
    assert idf(10, 8) == 1e-6

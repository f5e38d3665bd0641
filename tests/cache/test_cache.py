"""The one bounded cache: by count, by weight, safe between threads, and cleared at once."""

from __future__ import annotations

import threading

import catalog
from catalog.cache import BoundedCache
from catalog.lang import memo
from catalog.tokens import get_counter, memo_bytes


def test_the_least_recently_used_goes_first_past_the_count() -> None:
    cache: BoundedCache[str, int] = BoundedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # a is now the most recently used
    cache.put("c", 3)
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (1, None, 3)
    assert cache.usage() == (2, 2)


def test_the_weight_bounds_what_is_kept_and_the_newest_stays() -> None:
    cache: BoundedCache[str, str] = BoundedCache(10, weight=10)
    cache.put("x", "six...", 6)
    cache.put("y", "six...", 6)
    assert ("x" in cache, "y" in cache) == (False, True)
    assert cache.usage() == (1, 6)
    cache.put("big", "twenty", 20)  # alone over the bound: kept, the others pushed out
    assert cache.usage() == (1, 20)
    cache.put("y", "four", 4)
    assert cache.usage() == (1, 4)


def test_a_value_over_largest_is_never_kept() -> None:
    cache: BoundedCache[str, str] = BoundedCache(10, weight=100, largest=10)
    cache.put("small", "s", 10)
    cache.put("large", "l", 11)
    assert ("small" in cache, "large" in cache) == (True, False)


def test_replacing_and_popping_keep_the_weight_right() -> None:
    cache: BoundedCache[str, int] = BoundedCache(10, weight=100)
    cache.put("a", 1, 30)
    cache.put("a", 2, 40)
    assert (cache.get("a"), cache.usage()) == (2, (1, 40))
    assert cache.pop("a") == 2
    assert cache.pop("a") is None
    assert cache.usage() == (0, 0)


def test_threads_sharing_a_cache_keep_it_within_its_bounds() -> None:
    cache: BoundedCache[int, int] = BoundedCache(50, weight=400)
    failures: list[str] = []

    def work(offset: int) -> None:
        for n in range(2000):
            key = (offset * 7 + n) % 120
            found = cache.get(key)
            if found is not None and found != key * 2:
                failures.append(f"{key} gave {found}")
            cache.put(key, key * 2, key % 11)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    entries, weight = cache.usage()
    assert failures == []
    assert entries <= 50 and weight <= 400


def test_clear_caches_empties_every_cache_of_the_process() -> None:
    mine: BoundedCache[str, int] = BoundedCache(4)
    mine.put("kept", 1)
    cat = catalog.load("coding-agent")
    for _ in range(3):  # a body is remembered the second time its values are met
        cat.assemble({"tools": ["Bash"]})
    get_counter("cl100k_base")("a text to count")
    assert mine.usage() != (0, 0) and memo.usage() != (0, 0) and memo_bytes() > 0
    catalog.clear_caches()
    assert mine.usage() == (0, 0)
    assert memo.usage() == (0, 0)
    assert memo_bytes() == 0
    # What is computed again is what was kept.
    assert cat.assemble({"tools": ["Bash"]}).text == cat.assemble({"tools": ["Bash"]}).text

"""A token trie over a batch of prompts, and the plan that runs each shared prefix once.

Prompts of one task share much more than the prefix that all of them share: TIND sentences of one group
share their subject ("A dog is ..."), a multiple-choice question is shared by its choices. :func:`plan_rows`
builds a compressed trie over the prompts' token ids and lays it out for the model in two kinds of rows:

- **packed rows**: a row holds a small subtree of the trie (at most ``row_tokens`` tokens, every trie token
  once), in depth-first order; the engine runs it with an attention mask in which each token sees only its
  own ancestors (the tokens of its own prompt before it), with each token's position id = its depth, so each
  prompt's tokens get exactly the states of a plain forward pass over that prompt alone;
- **anchor rows**: a subtree too big for one row gets an *anchor*: its shared prefix runs once (a plain
  chain) and its key/value cache is kept while the rows beneath it run on top of it. An anchor's cache
  extends its parent anchor's cache.

Prompts are token sequences: the plan never re-tokenizes anything, so the ids a prompt runs with are its
own ids by construction (:meth:`TreePlan.check` verifies it). An anchor never holds a position that must be
scored (its end is at most the first scored position of every prompt beneath it), so every prompt is scored
inside one packed row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from negkit.engine.prefix import common_prefix_length

#: Tokens of one packed row (its attention is quadratic in this; larger subtrees get an anchor).
DEFAULT_ROW_TOKENS = 256


@dataclass
class Anchor:
    """A shared prefix run once: positions ``start`` .. ``end - 1`` on top of anchor ``parent`` (-1: none);
    its tokens are those of prompt ``sample`` (and of every prompt beneath it)."""

    parent: int
    start: int
    end: int
    sample: int = 0


@dataclass
class Row:
    """One row of a forward pass.

    ``tokens[k]`` runs at position ``positions[k]`` on top of the cache of anchor ``anchor`` (-1: none) and
    sees the tokens ``j <= k`` of this row with ``j`` an ancestor of ``k`` (the rows are in depth-first order:
    ``j`` is an ancestor of ``k`` when no token between them is at a depth of ``positions[j]`` or less).
    ``produces`` is the anchor whose cache this row computes (-1: a packed row). ``scored`` holds, per prompt
    scored here, its index and the columns of its scored positions in order.
    """

    anchor: int
    produces: int = -1
    tokens: list[int] = field(default_factory=list)
    positions: list[int] = field(default_factory=list)
    scored: list[tuple[int, list[int]]] = field(default_factory=list)

    def ancestor_ends(self) -> list[int]:
        """For each column j, the first column after j's subtree (j is an ancestor-or-self of k iff j <= k < end)."""
        ends = [len(self.positions)] * len(self.positions)
        open_columns: list[int] = []
        for column, position in enumerate(self.positions):
            while open_columns and self.positions[open_columns[-1]] >= position:
                ends[open_columns.pop()] = column
            open_columns.append(column)
        return ends


@dataclass
class TreePlan:
    """Anchors and rows, in the order they may run (a row needs its anchor's cache). ``cached``: the length of
    anchor 0 when it was given (a cache the caller has), else 0."""

    anchors: list[Anchor]
    rows: list[Row]
    cached: int = 0

    @property
    def tokens_run(self) -> int:
        """Tokens that go through the model (each shared prefix once per anchor or row)."""
        return sum(len(row.tokens) for row in self.rows)

    def check(self, sequences: Sequence[Sequence[int]], first: Sequence[int], last: Sequence[int]) -> None:
        """Raise :class:`PlanError` unless every prompt runs with exactly its own ids: the ids of its anchors and
        of its ancestors in its packed row spell the prompt, at positions 0, 1, ..., and its scored columns
        sit at its scored positions (the engine checks every plan before it runs it)."""
        produced = {row.produces: row for row in self.rows if row.produces >= 0}
        for row in self.rows:
            ends = row.ancestor_ends()
            for prompt, columns in row.scored:
                chain: list[Sequence[int]] = []
                anchor = row.anchor
                while anchor >= 0 and anchor in produced:
                    chain.append(produced[anchor].tokens)
                    anchor = self.anchors[anchor].parent
                if anchor >= 0:  # the given cache: the prompt's own first tokens (checked by plan_rows)
                    chain.append(sequences[prompt][: self.cached])
                ids = [token for tokens in reversed(chain) for token in tokens]
                start = len(ids)
                own = [k for k in range(columns[-1] + 1) if ends[k] > columns[-1]]
                ids.extend(row.tokens[k] for k in own)
                if (
                    ids != list(sequences[prompt][: last[prompt] + 1])
                    or [row.positions[k] for k in own] != list(range(start, len(ids)))
                    or [row.positions[c] for c in columns] != list(range(first[prompt], last[prompt] + 1))
                    or not set(columns) <= set(own)
                ):
                    raise PlanError(f"prompt {prompt} would not run with its own ids and positions")


class PlanError(RuntimeError):
    """A plan that would not run every prompt with its own ids (a bug; never silently used)."""


@dataclass
class Lane:
    """One sequence of a forward pass: plan rows side by side (``rows[k]`` starts at column ``starts[k]``),
    after the caches of ``anchors`` (the distinct anchors of its rows, each once, in this order)."""

    rows: list[int] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    anchors: list[int] = field(default_factory=list)
    fill: int = 0

    def anchor_offsets(self, plan: TreePlan) -> dict[int, int]:
        """Where each of the lane's anchor caches starts among its cache columns (side by side, in order)."""
        offsets, column = {}, 0
        for anchor in self.anchors:
            offsets[anchor] = column
            column += plan.anchors[anchor].end
        return offsets


def cache_columns(plan: TreePlan, lanes: Sequence[Lane]) -> int:
    """The cache columns a forward pass over ``lanes`` needs: the widest lane's anchor caches side by side."""
    return max(sum(plan.anchors[anchor].end for anchor in lane.anchors) for lane in lanes)


def pack_lanes(plan: TreePlan, ready: Sequence[int], width: int, lanes: int, lookahead: int) -> list[Lane]:
    """Put ready rows (plan order) into at most ``lanes`` lanes of ``width`` tokens, first fit, so that short
    rows (anchor chains, the last row beneath an anchor) fill the room long rows leave instead of padding.

    The first ready row always goes in; rows that do not fit are passed over, at most ``lookahead`` of them
    (rows run roughly in plan order, so anchor caches do not pile up)."""
    packed: list[Lane] = []
    passed = 0
    for index in ready:
        size = len(plan.rows[index].tokens)
        lane = next((lane for lane in packed if lane.fill + size <= width), None)
        if lane is None and len(packed) < lanes and (size <= width or not packed):
            lane = Lane()
            packed.append(lane)
        if lane is None:
            passed += 1
            if passed > lookahead:
                break
            continue
        lane.rows.append(index)
        lane.starts.append(lane.fill)
        lane.fill += size
        anchor = plan.rows[index].anchor
        if anchor >= 0 and anchor not in lane.anchors:
            lane.anchors.append(anchor)
    return packed


class _Node:
    __slots__ = ("start", "end", "children", "prompts", "size", "first", "sample")

    def __init__(self, start: int, end: int, sample: int) -> None:
        self.start, self.end = start, end  # the node's run is sequences[sample][start:end]
        self.children: list[_Node] = []
        self.prompts: list[int] = []  # prompts that end at this node
        self.size = 0  # tokens in the subtree (this run included)
        self.first = 0  # the smallest first scored position beneath
        self.sample = sample  # a prompt whose ids spell the node's path


def build_trie(sequences: Sequence[Sequence[int]]) -> tuple[_Node, list[int]]:
    """A compressed trie over ``sequences`` (children in sorted order) and the prompts in sorted order."""
    order = sorted(range(len(sequences)), key=lambda index: tuple(sequences[index]))
    root = _Node(0, 0, order[0] if order else 0)
    path = [root]
    previous: Sequence[int] = ()
    for index in order:
        sequence = sequences[index]
        common = common_prefix_length([previous, sequence])
        while len(path) > 1 and path[-1].start >= common:
            path.pop()
        top = path[-1]
        if top.end > common:  # the new prompt leaves inside this run: split it
            rest = _Node(common, top.end, top.sample)
            rest.children, rest.prompts = top.children, top.prompts
            top.end, top.children, top.prompts = common, [rest], []
        if len(sequence) > common:
            leaf = _Node(common, len(sequence), index)
            top.children.append(leaf)
            path.append(leaf)
            leaf.prompts.append(index)
        else:  # the same ids again (or a prompt that ends where another one branches)
            top.prompts.append(index)
        previous = sequence
    return root, order


def plan_rows(
    sequences: Sequence[Sequence[int]],
    first_scored: Sequence[int],
    last_scored: Sequence[int],
    row_tokens: int = DEFAULT_ROW_TOKENS,
    cached: int = 0,
) -> TreePlan:
    """Lay out ``sequences`` as anchors and rows (see the module doc).

    ``first_scored[i]`` .. ``last_scored[i]`` are the positions of prompt ``i`` whose output is needed.
    ``cached`` > 0: the first ``cached`` tokens, the same in every sequence, have a cache already: they are
    anchor 0, which no row produces.
    """
    if row_tokens < 1:
        raise ValueError(f"row_tokens must be at least 1, got {row_tokens}")
    if any(not 0 <= first <= last < len(ids) for ids, first, last in zip(sequences, first_scored, last_scored)):
        raise ValueError("every prompt needs scored positions inside its ids")
    if cached and (cached > min(first_scored) or len({tuple(ids[:cached]) for ids in sequences}) > 1):
        raise ValueError("a cached prefix must be shared by every prompt and end before every scored position")
    # tokens after the last scored position need not run
    sequences = [ids[: last + 1] for ids, last in zip(sequences, last_scored)]
    root, _order = build_trie(sequences)
    _measure(root, first_scored)
    anchors: list[Anchor] = [Anchor(-1, 0, cached)] if cached else []
    rows: list[Row] = []
    open_rows: dict[int, tuple[Row, list[int], Sequence[int]]] = {}  # anchor -> (row, its path columns, last prompt)
    # iterative depth-first walk: (node, anchor in force)
    stack: list[tuple[_Node, int]] = [(child, 0 if cached else -1) for child in reversed(root.children)]
    while stack:
        node, anchor = stack.pop()
        anchor_end = anchors[anchor].end if anchor >= 0 else 0
        cut = min(node.end, node.first)
        # tokens of this subtree past the anchor's end (a node may begin inside a cached prefix)
        if node.size + node.start - anchor_end > row_tokens and cut > anchor_end and node.children:
            anchors.append(Anchor(anchor, anchor_end, cut, node.sample))
            new = len(anchors) - 1
            row = Row(anchor=anchor, produces=new)
            ids = sequences[node.sample]
            row.tokens = list(ids[anchor_end:cut])
            row.positions = list(range(anchor_end, cut))
            rows.append(row)
            anchor, anchor_end = new, cut
        for prompt in node.prompts:
            _add_prompt(
                rows,
                open_rows,
                anchor,
                anchor_end,
                prompt,
                sequences[prompt],
                first_scored[prompt],
                last_scored[prompt],
                row_tokens,
            )
        stack.extend((child, anchor) for child in reversed(node.children))
    return TreePlan(anchors, rows, cached)


def _add_prompt(
    rows: list[Row],
    open_rows: dict[int, tuple[Row, list[int], Sequence[int]]],
    anchor: int,
    anchor_end: int,
    prompt: int,
    ids: Sequence[int],
    first: int,
    last: int,
    row_tokens: int,
) -> None:
    """Put ``prompt`` into the open packed row of ``anchor``, sharing what it has in common with the prompt
    added before it (a new row when it would not fit)."""
    rest = ids[anchor_end:]
    entry = open_rows.get(anchor)
    common = 0
    if entry is not None:
        row, path, previous = entry
        common = min(common_prefix_length([previous, rest]), len(path))
        if len(row.tokens) + len(rest) - common > row_tokens:
            entry, common = None, 0
    if entry is None:
        row, path = Row(anchor=anchor), []
        rows.append(row)
    path = path[:common]
    for offset in range(common, len(rest)):
        path.append(len(row.tokens))
        row.tokens.append(rest[offset])
        row.positions.append(anchor_end + offset)
    row.scored.append((prompt, [path[position - anchor_end] for position in range(first, last + 1)]))
    open_rows[anchor] = (row, path, rest)


def _measure(root: _Node, first_scored: Sequence[int]) -> None:
    """Fill each node's subtree size and smallest first scored position (children before parents)."""
    order: list[_Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(node.children)
    for node in reversed(order):
        node.size = (node.end - node.start) + sum(child.size for child in node.children)
        firsts = [first_scored[prompt] for prompt in node.prompts] + [child.first for child in node.children]
        node.first = min(firsts) if firsts else node.end

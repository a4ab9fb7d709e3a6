"""PyYAML (libyaml, the C parser, where present) as yaml12 uses it: the YAML tags, and a loader that builds the
node tree with plain scalars left untyped (the schema types them: yaml_schema.py), imported on first use."""

from __future__ import annotations

from typing import Any, Protocol, TypeAlias

# A PyYAML node, event or loader (yaml.nodes.*, yaml.events.*). Typed Any: the readers dispatch on
# `x.__class__ is lib.ScalarNode`, classes bound at first use (PyYAML is imported only when needed), which a type
# checker cannot narrow on, and the nodes' attributes (value, style, flow_style) differ by class.
YamlNode: TypeAlias = Any
YamlEvent: TypeAlias = Any
YamlLoader: TypeAlias = Any

# What the readers record of where a container's children are (YamlDoc): {key: line} for a mapping, [line, ...] for
# a sequence, or one line for children all on that line. Keyed by id(container).
ChildLines: TypeAlias = "dict[Any, int] | list[int] | int"


class YamlMark(Protocol):
    """Where a node or event starts or ends: libyaml's Mark or PyYAML's, which have these fields (0-based)."""

    line: int
    column: int


# Tags: an untagged plain scalar gets PLAIN from the resolver, typed later by the schema (yaml_schema.py).
PLAIN = "?plain"
STR = "tag:yaml.org,2002:str"
SEQ = "tag:yaml.org,2002:seq"
MAP = "tag:yaml.org,2002:map"
INT = "tag:yaml.org,2002:int"
FLOAT = "tag:yaml.org,2002:float"
BOOL = "tag:yaml.org,2002:bool"
NULL = "tag:yaml.org,2002:null"
BINARY = "tag:yaml.org,2002:binary"
TIMESTAMP = "tag:yaml.org,2002:timestamp"
SET = "tag:yaml.org,2002:set"
OMAP = "tag:yaml.org,2002:omap"
PAIRS = "tag:yaml.org,2002:pairs"


class Binding:
    """PyYAML's classes this reader uses (`lib.ScalarEvent`…), and a loader class that leaves plain scalars
    untyped, imported on first use: plain block YAML is read without them (yaml_block.py), so `turnlens export` on
    such files never pays for importing PyYAML."""

    yaml: Any
    AliasEvent: Any
    MappingEndEvent: Any
    MappingStartEvent: Any
    ScalarEvent: Any
    SequenceEndEvent: Any
    SequenceStartEvent: Any
    StreamEndEvent: Any
    MappingNode: Any
    ScalarNode: Any
    SequenceNode: Any
    Loader: Any
    have_libyaml: bool

    def __getattr__(self, name: str) -> Any:  # (only for a name not yet set: the first use)
        if name.startswith("__") or self.__dict__:
            raise AttributeError(name)
        self.__dict__.update(_load())
        return getattr(self, name)


lib = Binding()


def new_loader(text: str) -> YamlLoader:
    return lib.Loader(text)


def _load() -> dict[str, Any]:
    import yaml
    from yaml.events import (
        AliasEvent,
        MappingEndEvent,
        MappingStartEvent,
        ScalarEvent,
        SequenceEndEvent,
        SequenceStartEvent,
        StreamEndEvent,
    )
    from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
    from yaml.resolver import BaseResolver

    class _TagOnlyResolver(BaseResolver):
        """Leaves plain scalars for the schema to type; quoted scalars are strings."""

        def resolve(self, kind: type[Node], value: Any, implicit: tuple[bool, bool]) -> str:
            if kind is ScalarNode:
                return PLAIN if implicit[0] else STR
            return SEQ if kind is SequenceNode else MAP

        def descend_resolver(self, current_node: Node | None, current_index: Any) -> None:
            pass

        def ascend_resolver(self) -> None:
            pass

    def make_loader_class(parser_class: type[Any]) -> type[Any]:
        # (the parser is libyaml's or PyYAML's, chosen at run time: a base a type checker cannot follow)
        class Loader(parser_class, yaml.constructor.BaseConstructor, _TagOnlyResolver):  # type: ignore[misc]
            def __init__(self, stream: str) -> None:
                parser_class.__init__(self, stream)
                yaml.constructor.BaseConstructor.__init__(self)
                _TagOnlyResolver.__init__(self)

        return Loader

    have_libyaml = bool(getattr(yaml, "__with_libyaml__", False))
    if have_libyaml:
        from yaml._yaml import CParser

        loader = make_loader_class(CParser)
    else:  # PyYAML built without libyaml: same results, slower
        from yaml.composer import Composer
        from yaml.parser import Parser
        from yaml.reader import Reader
        from yaml.scanner import Scanner

        class PyParser(Reader, Scanner, Parser, Composer):
            def __init__(self, stream: str) -> None:
                Reader.__init__(self, stream)
                Scanner.__init__(self)
                Parser.__init__(self)
                Composer.__init__(self)

        loader = make_loader_class(PyParser)
    names = dict(
        yaml=yaml,
        AliasEvent=AliasEvent,
        MappingEndEvent=MappingEndEvent,
        MappingStartEvent=MappingStartEvent,
        ScalarEvent=ScalarEvent,
        SequenceEndEvent=SequenceEndEvent,
        SequenceStartEvent=SequenceStartEvent,
        StreamEndEvent=StreamEndEvent,
        MappingNode=MappingNode,
        ScalarNode=ScalarNode,
        SequenceNode=SequenceNode,
    )
    return {**names, "Loader": loader, "have_libyaml": have_libyaml}

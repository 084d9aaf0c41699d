"""Typed schemas for the book's YAML files: load a mapping into frozen dataclasses, or say what is wrong.

A schema is a dataclass. Each field is one key, annotated with what its value must
be: ``str``, ``int``, ``float``, ``bool``, ``Any``, another schema, ``X | None``,
``tuple[X, ...]`` (a YAML list), or ``dict[str, X]`` (a mapping of names to X). A
field with a default may be left out. Adding a key to a file is adding one line
to its schema, for example ``plurals: tuple[str, ...] = ()``.

Field metadata refines a field:

- ``check``: a function applied to the loaded value, returning it (possibly
  converted) or raising ``ValueError`` with what was expected;
- ``rest``: on a ``dict[str, X]`` field, the mapping's other keys (those no other
  field names) are collected into it, each validated as X.

A schema whose ``PASS_THROUGH`` class attribute names another tool accepts keys
it does not know, as that tool's: only a key close to one of its own (a likely
misspelling) is refused.

:func:`load` reads a file, :func:`validate` checks data already read; both raise
:class:`ConfigError`, whose message names the file, the key and what was expected:
``chapters/glossary.yml: concepts.attention.id: unknown key 'bannd' (did you mean
'banned'?); expected term, banned, note``.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import yaml

T = TypeVar("T")
SIMPLE_TYPES: dict[type, str] = {str: "a string", int: "an integer", float: "a number", bool: "true or false"}
PLAIN_KEY = re.compile(r"^[\w-]+$")


class ConfigError(ValueError):
    """A configuration file whose content does not match its schema."""

    def __init__(self, file: str, key: str, problem: str) -> None:
        self.file, self.key, self.problem = file, key, problem
        super().__init__(f"{file}: {key + ': ' if key else ''}{problem}")


def _join(key: str, name: str) -> str:
    part = name if PLAIN_KEY.match(name) else repr(name)
    return f"{key}.{part}" if key else part


def _show(value: object) -> str:
    text = repr(value)
    kind = {
        str: "a string",
        int: "an integer",
        float: "a number",
        bool: "a boolean",
        list: "a list",
        dict: "a mapping",
        type(None): "nothing",
    }.get(type(value), type(value).__name__)
    return kind if value is None or isinstance(value, (list, dict)) else f"{kind} ({text[:60]})"


def describe(annotation: Any) -> str:
    """Say in words what a value of type ``annotation`` is (for error messages)."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation is Any:
        return "any value"
    if annotation in SIMPLE_TYPES:
        return SIMPLE_TYPES[annotation]
    if origin in (typing.Union, types.UnionType):
        return " or ".join("nothing" if arg is type(None) else describe(arg) for arg in args)
    if origin in (tuple, list):
        return f"a list, each item {describe(args[0])}"
    if origin is dict:
        return "a mapping of names to values" + ("" if args[1] is Any else f", each {describe(args[1])}")
    if dataclasses.is_dataclass(annotation):
        return f"a mapping with the keys {', '.join(_field_names(annotation))}"
    return str(annotation)


def _field_names(schema: Any) -> list[str]:
    return [f.name for f in dataclasses.fields(schema) if not f.metadata.get("rest")]


def _convert(value: object, annotation: Any, file: str, key: str) -> Any:
    """Return ``value`` converted to ``annotation``; raise ConfigError where it does not fit."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation is Any:
        return value
    if annotation in SIMPLE_TYPES:
        fits = isinstance(value, annotation) and not (annotation is not bool and isinstance(value, bool))
        if annotation is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if not fits:
            raise ConfigError(file, key, f"expected {describe(annotation)}, got {_show(value)}")
        return value
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        options = [arg for arg in args if arg is not type(None)]
        errors = []
        for option in options:
            try:
                return _convert(value, option, file, key)
            except ConfigError as error:
                errors.append(error)
        if len(errors) == 1 and errors[0].key != key:
            raise errors[0]  # a problem inside the value
        raise ConfigError(file, key, f"expected {describe(annotation)}, got {_show(value)}")
    if origin in (tuple, list):
        if not isinstance(value, list):
            raise ConfigError(file, key, f"expected {describe(annotation)}, got {_show(value)}")
        items = [_convert(item, args[0], file, f"{key}[{index}]") for index, item in enumerate(value)]
        return tuple(items) if origin is tuple else items
    if origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(file, key, f"expected {describe(annotation)}, got {_show(value)}")
        return {str(name): _convert(item, args[1], file, _join(key, str(name))) for name, item in value.items()}
    if dataclasses.is_dataclass(annotation):
        return validate(value, typing.cast("type[Any]", annotation), file, key)
    raise TypeError(f"schema type {annotation!r} is not supported")  # a mistake in a schema, not in a file


def validate(data: object, schema: type[T], file: str, key: str = "") -> T:
    """Return ``data`` (read from ``file``, at ``key``) as an instance of the dataclass ``schema``.

    Raises:
        ConfigError: naming ``file``, the key and what was expected, for a missing
            key, an unknown key or a value of the wrong type.
    """
    if not isinstance(data, dict):
        raise ConfigError(file, key, f"expected {describe(schema)}, got {_show(data)}")
    hints = typing.get_type_hints(schema)
    fields = dataclasses.fields(typing.cast("Any", schema))
    named = _field_names(schema)
    rest = next((f for f in fields if f.metadata.get("rest")), None)
    pass_through = getattr(schema, "PASS_THROUGH", None)
    for name in data:
        if str(name) in named or rest is not None:
            continue
        close = difflib.get_close_matches(str(name), named, n=1, cutoff=0.8 if pass_through else 0.6)
        if pass_through and not close:
            continue  # another tool's key
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        known = (
            f"expected {', '.join(named)}"
            if not pass_through
            else f"booktools reads {', '.join(named)} and leaves the other keys to {pass_through}"
        )
        raise ConfigError(file, key, f"unknown key {name!r}{hint}; {known}")
    values: dict[str, Any] = {}
    for field in fields:
        if field.metadata.get("rest"):
            others = {name: value for name, value in data.items() if str(name) not in named}
            values[field.name] = _convert(others, hints[field.name], file, key)
            continue
        if field.name not in data:
            if field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
                raise ConfigError(file, key, f"missing key {field.name!r} ({describe(hints[field.name])})")
            continue
        where = _join(key, field.name)
        value = _convert(data[field.name], hints[field.name], file, where)
        check: Callable[[Any], Any] | None = field.metadata.get("check")
        if check is not None:
            try:
                value = check(value)
            except ValueError as error:
                raise ConfigError(file, where, str(error)) from error
        values[field.name] = value
    return schema(**values)


def read_text(path: Path, file: str) -> str:
    """Return the text of a configuration file; ``file`` is how messages name it.

    Raises:
        ConfigError: if the file is missing.
    """
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError as error:
        raise ConfigError(file, "", "missing") from error


def yaml_data(text: str, file: str) -> object:
    """Return the data of a YAML text; ``file`` is how messages name it.

    Raises:
        ConfigError: if the text is not valid YAML.
    """
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ConfigError(file, "", f"not valid YAML: {error}") from error


def read_yaml(path: Path, file: str) -> object:
    """Return the data of a YAML file; ``file`` is how messages name it.

    Raises:
        ConfigError: if the file is missing or is not valid YAML.
    """
    return yaml_data(read_text(path, file), file)


def load(path: Path, schema: type[T], file: str | None = None) -> T:
    """Read the YAML file at ``path`` into ``schema`` (see :func:`validate`); ``file`` names it in messages."""
    name = file or path.name
    return validate(read_yaml(path, name), schema, name)

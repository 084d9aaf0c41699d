"""What a check needs from a framework, and the run of a layer it returns.

The checks themselves (``d2l_lib.exercises.functions`` and ``.layers``) are written once,
on NumPy arrays; a backend (``torch_backend``, ``jax_backend``, ``tensorflow_backend``)
turns those arrays into its framework's tensors, runs the reader's object on them the way
D2L's code of that framework does, and hands NumPy arrays back.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any, Protocol

import numpy as np

from d2l_lib.exercises.report import Failure


@dataclasses.dataclass
class LayerRun:
    """One call of an attention layer, as NumPy arrays.

    ``grads`` are the gradients of ``sum(output * R)`` for a fixed random ``R``, by input name
    (``queries``, ``keys``, ``values``; ``M`` for the bilinear reference); ``params`` and
    ``param_grads`` are the layer's own parameters and their gradients, in the layer's order;
    ``again`` is the output of a second call on the same inputs (the one differentiated);
    ``modified`` names the inputs the first call changed in place; ``grad_error`` is what the
    second call raised, if it did (``grads`` is then ``None``).
    """

    output: np.ndarray
    weights: np.ndarray
    grads: dict[str, np.ndarray] | None
    params: list[np.ndarray] = dataclasses.field(default_factory=list)
    param_grads: list[np.ndarray | None] = dataclasses.field(default_factory=list)
    again: np.ndarray | None = None
    modified: list[str] = dataclasses.field(default_factory=list)
    grad_error: str | None = None


@dataclasses.dataclass
class LayerInputs:
    """The inputs of a layer's call: queries, keys, values, valid lengths and the gradient weights ``R``."""

    queries: np.ndarray
    keys: np.ndarray
    values: np.ndarray
    valid_lens: np.ndarray | None
    R: np.ndarray


class Backend(Protocol):
    """One framework, as the checks use it."""

    name: str  # "pytorch", "jax" or "tensorflow", as d2lbook names frameworks
    tensor_type: str  # the type a function must return, as readers know it ("torch.Tensor")
    layer_base: str  # the class a layer must subclass ("torch.nn.Module")

    def reference(self) -> ModuleType:
        """Return ``d2l_lib.<framework>``, the reference implementations."""
        ...

    def tensor(self, array: np.ndarray) -> Any:
        """Return ``array`` as a tensor of the framework (integers as the framework's lengths)."""
        ...

    def numpy(self, value: Any, what: str) -> np.ndarray:
        """Return a tensor as NumPy; raise ``Failure("wrong_type")`` for anything else."""
        ...

    def is_layer_class(self, answer: Any) -> bool:
        """Whether ``answer`` is a subclass of the framework's layer class."""
        ...

    def is_layer(self, answer: Any) -> bool:
        """Whether ``answer`` is an instance of the framework's layer class."""
        ...

    def run_layer(self, cls: type, kwargs: dict[str, Any], inputs: LayerInputs) -> LayerRun:
        """Construct ``cls(**kwargs)`` as D2L's code does and run it in evaluation mode."""
        ...

    def run_reference(self, kind: str, inputs: LayerInputs, M: np.ndarray | None = None) -> LayerRun:
        """Run the library's layer for exercise ``kind`` ("distance" or "bilinear", with matrix ``M``)."""
        ...


class FrameworkBackend:
    """What every backend shares: its reference module and its layer class, by name.

    A subclass sets ``module`` (``d2l_lib.<module>`` is the reference) and ``layer_class``
    (the class a layer answer must subclass).
    """

    module: str
    layer_class: type

    def reference(self) -> ModuleType:
        """Return ``d2l_lib.<module>``, the reference implementations."""
        return importlib.import_module(f"d2l_lib.{self.module}")

    def is_layer_class(self, answer: Any) -> bool:
        """Whether ``answer`` is a subclass of the framework's layer class."""
        return isinstance(answer, type) and issubclass(answer, self.layer_class)

    def is_layer(self, answer: Any) -> bool:
        """Whether ``answer`` is an instance of the framework's layer class."""
        return isinstance(answer, self.layer_class)


def type_name(value: Any) -> str:
    """Return the type of ``value`` as a reader would write it (``numpy.ndarray``, ``list``)."""
    if isinstance(value, type):
        return f"class {value.__qualname__}"
    kind = type(value)
    module = kind.__module__
    return kind.__qualname__ if module == "builtins" else f"{module.split('.')[0]}.{kind.__qualname__}"


def wrong_type(expected: str, value: Any, what: str) -> Failure:
    """The failure of a value of the wrong type."""
    return Failure("wrong_type", what=what, expected=expected, received=type_name(value))


def returned(value: Any, name: str) -> Any:
    """Return what the reader's ``name`` returned; raise ``Failure("returns_none")`` for None (a body of ``...``)."""
    if value is None or value is Ellipsis:
        raise Failure("returns_none", fatal=True, name=name, received=repr(value))
    return value


def guarded(call: Callable[[], Any], name: str) -> Any:
    """Run the reader's ``call``; turn what it raises into a ``Failure`` that names it, without a traceback."""
    try:
        return call()
    except Failure:
        raise
    except NotImplementedError as error:
        raise Failure("not_implemented", name=name, fatal=True) from error
    except Exception as error:  # whatever the reader's code raises is reported, not propagated
        message = str(error).strip().splitlines()
        first = message[0] if message else ""
        if len(first) > 300:
            first = first[:297] + "..."
        raise Failure("raised", name=name, error=type(error).__name__, message=first) from error

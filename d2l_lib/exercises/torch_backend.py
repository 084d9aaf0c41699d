"""The PyTorch backend of the exercise checks: layers are ``nn.Module`` classes, run after ``.eval()``."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from d2l_lib.exercises.backend import FrameworkBackend, LayerInputs, LayerRun, returned, wrong_type
from d2l_lib.exercises.report import Failure


class TorchBackend(FrameworkBackend):
    """Tensors are ``torch.Tensor``; lengths are int64; gradients come from ``backward``."""

    name = "pytorch"
    tensor_type = "torch.Tensor"
    layer_base = "torch.nn.Module"
    module = "torch"
    layer_class = nn.Module

    def tensor(self, array: np.ndarray) -> torch.Tensor:
        return torch.tensor(array, dtype=torch.int64 if array.dtype.kind in "iu" else None)

    def numpy(self, value: Any, what: str) -> np.ndarray:
        if not isinstance(value, torch.Tensor):
            raise wrong_type(self.tensor_type, value, what)
        return value.detach().cpu().numpy()

    def _tensors(self, inputs: LayerInputs, grad: bool) -> dict[str, torch.Tensor]:
        tensors = {n: torch.tensor(getattr(inputs, n), requires_grad=grad) for n in ("queries", "keys", "values")}
        if inputs.valid_lens is not None:
            tensors["valid_lens"] = self.tensor(inputs.valid_lens)
        return tensors

    def run_layer(self, cls: type, kwargs: dict[str, Any], inputs: LayerInputs) -> LayerRun:
        layer = cls(**kwargs)
        layer.eval()  # D2L's code evaluates a layer this way: no dropout
        plain = self._tensors(inputs, grad=False)
        copies = {name: t.clone() for name, t in plain.items()}
        with torch.no_grad():
            output = layer(plain["queries"], plain["keys"], plain["values"], plain.get("valid_lens"))
        out = self.numpy(returned(output, f"{cls.__name__}.forward"), "output")
        weights = getattr(layer, "attention_weights", None)
        if weights is None:
            raise Failure("weights_not_stored", api="attention_weights")
        run = LayerRun(output=out, weights=self.numpy(weights, "attention_weights"), grads=None)
        run.modified = [name for name, copy in copies.items() if not torch.equal(plain[name], copy)]
        params = list(layer.parameters())
        run.params = [p.detach().numpy().copy() for p in params]
        tensors = self._tensors(inputs, grad=True)
        try:  # the second call, with gradients: an error here is told as such, not raised
            again = layer(tensors["queries"], tensors["keys"], tensors["values"], tensors.get("valid_lens"))
            run.again = self.numpy(again, "output")
            if again.shape == inputs.R.shape:
                (again * torch.tensor(inputs.R)).sum().backward()
        except Exception as error:  # noqa: BLE001 (the reader's code may raise anything)
            text = str(error).strip()
            run.grad_error = f"{type(error).__name__}: {text.splitlines()[0] if text else ''}"
            return run
        run.grads = {
            n: np.zeros(t.shape, np.float32) if t.grad is None else t.grad.numpy()
            for n, t in tensors.items()
            if n != "valid_lens"
        }
        run.param_grads = [None if p.grad is None else p.grad.numpy().copy() for p in params]
        return run

    def run_reference(self, kind: str, inputs: LayerInputs, M: np.ndarray | None = None) -> LayerRun:
        d2l = self.reference()
        extra = None
        if kind == "distance":
            layer: nn.Module = d2l.DistanceAttention(dropout=0.5)
        else:
            layer = d2l.DotProductAttention(dropout=0.1)  # on keys mapped by M: the bilinear scores
            extra = {"M": torch.tensor(M, requires_grad=True)}
        layer.eval()
        tensors = self._tensors(inputs, grad=True)
        lens = tensors.pop("valid_lens", None)
        keys = tensors["keys"] if extra is None else tensors["keys"] @ extra["M"].T
        output = layer(tensors["queries"], keys, tensors["values"], lens)
        (output * torch.tensor(inputs.R)).sum().backward()
        grads = {name: np.asarray(t.grad) for name, t in {**tensors, **(extra or {})}.items()}
        weights = self.numpy(layer.attention_weights, "attention_weights")
        return LayerRun(output=output.detach().numpy(), weights=weights, grads=grads)

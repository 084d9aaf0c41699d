"""The TensorFlow backend of the exercise checks: layers are Keras layers, called with ``training=False``."""

from __future__ import annotations

from typing import Any

import keras
import numpy as np
import tensorflow as tf

from d2l_lib.exercises.backend import FrameworkBackend, LayerInputs, LayerRun, returned, wrong_type
from d2l_lib.exercises.report import Failure

INPUTS = ("queries", "keys", "values")


class TensorFlowBackend(FrameworkBackend):
    """Tensors are ``tf.Tensor``; lengths are int32; gradients come from ``tf.GradientTape``."""

    name = "tensorflow"
    tensor_type = "tf.Tensor"
    layer_base = "keras.layers.Layer"
    module = "tensorflow"
    layer_class = keras.layers.Layer

    def tensor(self, array: np.ndarray) -> tf.Tensor:
        return tf.constant(array, dtype=tf.int32 if array.dtype.kind in "iu" else None)

    def numpy(self, value: Any, what: str) -> np.ndarray:
        if not tf.is_tensor(value):
            raise wrong_type(self.tensor_type, value, what)
        return np.asarray(value)

    def _call(self, layer: Any, inputs: LayerInputs, M: tf.Tensor | None = None) -> tuple[Any, dict[str, Any]]:
        tensors = {name: tf.constant(getattr(inputs, name)) for name in INPUTS}
        lens = None if inputs.valid_lens is None else self.tensor(inputs.valid_lens)
        keys = tensors["keys"] if M is None else tf.matmul(tensors["keys"], M, transpose_b=True)
        return layer(tensors["queries"], keys, tensors["values"], lens, training=False), tensors

    def run_layer(self, cls: type, kwargs: dict[str, Any], inputs: LayerInputs) -> LayerRun:
        layer = cls(**kwargs)
        output, _ = self._call(layer, inputs)
        out = self.numpy(returned(output, f"{cls.__name__}.call"), "output")
        weights = getattr(layer, "attention_weights", None)
        if weights is None:
            raise Failure("weights_not_stored", api="attention_weights")
        run = LayerRun(output=out, weights=self.numpy(weights, "attention_weights"), grads=None)
        variables = list(layer.trainable_variables)
        run.params = [np.asarray(variable) for variable in variables]
        try:  # the second call, with gradients: an error here is told as such, not raised
            with tf.GradientTape(persistent=True) as tape:
                tensors = {name: tf.constant(getattr(inputs, name)) for name in INPUTS}
                tape.watch(list(tensors.values()))
                lens = None if inputs.valid_lens is None else self.tensor(inputs.valid_lens)
                again = layer(tensors["queries"], tensors["keys"], tensors["values"], lens, training=False)
                run.again = self.numpy(again, "output")
                loss = tf.reduce_sum(again * inputs.R)
            grads = tape.gradient(loss, [*tensors.values(), *variables])
        except Failure:
            raise
        except Exception as error:  # noqa: BLE001 (the reader's code may raise anything)
            text = str(error).strip()
            run.grad_error = f"{type(error).__name__}: {text.splitlines()[0] if text else ''}"
            return run
        zeros = [np.zeros(getattr(inputs, name).shape, np.float32) for name in INPUTS]
        run.grads = {
            name: zero if grad is None else np.asarray(grad) for name, grad, zero in zip(INPUTS, grads[:3], zeros)
        }
        run.param_grads = [None if grad is None else np.asarray(grad) for grad in grads[3:]]
        return run

    def run_reference(self, kind: str, inputs: LayerInputs, M: np.ndarray | None = None) -> LayerRun:
        d2l = self.reference()
        layer = d2l.DistanceAttention(dropout=0.5) if kind == "distance" else d2l.DotProductAttention(dropout=0.1)
        matrix = None if M is None else tf.constant(M)
        with tf.GradientTape() as tape:
            tensors = {name: tf.constant(getattr(inputs, name)) for name in INPUTS}
            watched = [*tensors.values()] + ([] if matrix is None else [matrix])
            tape.watch(watched)
            lens = None if inputs.valid_lens is None else self.tensor(inputs.valid_lens)
            keys = tensors["keys"] if matrix is None else tf.matmul(tensors["keys"], matrix, transpose_b=True)
            output = layer(tensors["queries"], keys, tensors["values"], lens, training=False)
            loss = tf.reduce_sum(output * inputs.R)
        grads = tape.gradient(loss, watched)
        names = INPUTS if M is None else (*INPUTS, "M")
        return LayerRun(
            output=np.asarray(output),
            weights=np.asarray(layer.attention_weights),
            grads={name: np.asarray(grad) for name, grad in zip(names, grads)},
        )

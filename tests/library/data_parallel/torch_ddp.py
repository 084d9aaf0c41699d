"""PyTorch's DistributedDataParallel trains a multi-head attention around d2l_lib's
``DotProductAttention`` as one process does.

Usage: ``python torch_ddp.py OUTPUT_DIRECTORY``. Trains ``problem.py``'s problem on the whole
batch in this process, then in ``problem.NUM_REPLICAS`` processes (gloo, on the CPU) that each
take their part of the batch, and saves the weights of every group of ``problem.GROUPS``.
"""

from __future__ import annotations

import datetime
import os
import socket
import sys
from pathlib import Path

import numpy as np
import problem
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.nn.parallel import DistributedDataParallel

from d2l_lib import torch as d2l

# A collective that waits longer than this for the other process fails, rather than hanging.
COLLECTIVE_TIMEOUT = datetime.timedelta(seconds=60)


class MultiHeadAttention(nn.Module):
    """Multi-head scaled dot-product attention: project, split into heads, attend, join, project."""

    def __init__(self, weights: dict[str, np.ndarray], num_heads: int):
        super().__init__()
        self.num_heads = num_heads
        for name, matrix in weights.items():
            setattr(self, name, _linear(matrix))
        self.attention = d2l.DotProductAttention(dropout=0)

    def split_heads(self, X: torch.Tensor) -> torch.Tensor:
        """(batch, n, heads * d) -> (batch * heads, n, d): each head becomes an example."""
        batch_size, n, _ = X.shape
        X = X.reshape(batch_size, n, self.num_heads, -1).permute(0, 2, 1, 3)
        return X.reshape(batch_size * self.num_heads, n, -1)

    def join_heads(self, X: torch.Tensor) -> torch.Tensor:
        """(batch * heads, n, d) -> (batch, n, heads * d), undoing ``split_heads``."""
        _, n, d = X.shape
        X = X.reshape(-1, self.num_heads, n, d).permute(0, 2, 1, 3)
        return X.reshape(X.shape[0], n, self.num_heads * d)

    def forward(self, queries, keys, values, valid_lens):
        queries = self.split_heads(self.W_q(queries))
        keys = self.split_heads(self.W_k(keys))
        values = self.split_heads(self.W_v(values))
        # Every head of an example attends to as many keys as the example
        valid_lens = torch.repeat_interleave(valid_lens, self.num_heads, dim=0)
        output = self.attention(queries, keys, values, valid_lens)
        return self.W_o(self.join_heads(output))


def _linear(matrix: np.ndarray) -> nn.Linear:
    """A ``Linear`` without bias that computes ``x @ matrix``."""
    inputs, outputs = matrix.shape
    layer = nn.Linear(inputs, outputs, bias=False)
    with torch.no_grad():
        layer.weight.copy_(torch.from_numpy(matrix.T))
    return layer


def weights_of(model: MultiHeadAttention) -> dict[str, np.ndarray]:
    """The model's projections as (inputs, outputs) NumPy matrices."""
    return {name: getattr(model, name).weight.detach().numpy().T.copy() for name in problem.PROJECTIONS}


def train(model: nn.Module, arrays: dict[str, np.ndarray]) -> None:
    """``problem.STEPS`` steps of SGD on the mean squared error over ``arrays``' examples."""
    tensors = {name: torch.from_numpy(array) for name, array in arrays.items()}
    optimizer = torch.optim.SGD(model.parameters(), lr=problem.LEARNING_RATE)
    for _ in range(problem.STEPS):
        optimizer.zero_grad()
        outputs = model(tensors["queries"], tensors["keys"], tensors["values"], tensors["valid_lens"])
        # A mean: DDP averages the replicas' gradients, and the mean of the halves' means is the
        # whole batch's mean, the halves being the same size
        loss = nn.functional.mse_loss(outputs, tensors["targets"])
        loss.backward()
        optimizer.step()


def replica(rank: int, port: int, directory: str) -> None:
    """Process ``rank`` of the group: train the DDP model on its part of the batch, save its weights."""
    torch.set_num_threads(1)
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=problem.NUM_REPLICAS, timeout=COLLECTIVE_TIMEOUT)
    try:
        model = MultiHeadAttention(problem.initial_weights(), problem.NUM_HEADS)
        train(DistributedDataParallel(model), problem.shard(problem.batch(), rank))
        problem.save(Path(directory), f"replica{rank}", weights_of(model))
    finally:
        dist.destroy_process_group()


def free_port() -> int:
    """A TCP port of 127.0.0.1 that is free now (the system's choice for port 0)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def main(directory: Path) -> None:
    """Save the starting weights, train in this process, then in the process group."""
    torch.set_num_threads(1)
    problem.save(directory, "initial", problem.initial_weights())
    model = MultiHeadAttention(problem.initial_weights(), problem.NUM_HEADS)
    train(model, problem.batch())
    problem.save(directory, "single", weights_of(model))
    mp.spawn(replica, args=(free_port(), str(directory)), nprocs=problem.NUM_REPLICAS, join=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]))

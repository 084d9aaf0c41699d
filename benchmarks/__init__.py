"""Speed and memory of d2l_lib against named baselines: ``make bench`` (``python -m benchmarks``).

Scripts, not tests: they print tables, and nothing fails on a slow machine. docs/benchmarks.md
records the latest tables and explains them. The modules, one job each:

* ``__main__``: ``make bench``: the CPU table, the GPU table and the masked softmax's paths,
  each in a process of its own;
* ``cpu_table``: the CPU table's command line, label and order of rows;
* ``gpu_table``: the GPU table's command line and label (measures nothing without a CUDA GPU;
  ``--device cpu --dry-run`` runs every row's code once at tiny sizes);
* ``settings``: sizes, goals, budgets and paths;
* ``timing``: interleaved rounds, medians;
* ``machine``: CPU model, memory, load average, versions;
* ``baselines``: D2L's masked softmax and additive layer, the layer before issue 27, SDPA calls;
* ``inputs``: the library under test, seeded inputs and lengths, a training step;
* ``agreement``: the library against each baseline before anything is timed;
* ``table``: the columns, the rows, the count of goals met;
* ``rows_torch``, ``rows_issue27``, ``rows_training``, ``rows_frameworks``: the CPU table's rows
  (``rows_training`` also the GPU's);
* ``memory``: peak memory of one call, in a child process;
* ``scaling``: how cost grows with the sequence length, and its plot;
* ``gpu_rows``, ``gpu_jax``: the GPU table's PyTorch and JAX rows;
* ``masked_softmax_paths``: the two paths of PyTorch's masked softmax;
* ``jax_mask_setup``: where the JAX layer's time goes on a GPU (run by hand).
"""

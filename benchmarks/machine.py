"""Facts about the machine and the software that label a table: CPU, memory, load, versions."""

from __future__ import annotations

import importlib
import platform
from pathlib import Path

import torch


def cpu_model() -> str:
    """The CPU's model name (Linux), or what ``platform`` knows."""
    try:
        for line in Path('/proc/cpuinfo').read_text().splitlines():
            if line.startswith('model name'):
                return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def memory_gib() -> str:
    """The machine's memory in GiB (Linux), or ``n/a``."""
    try:
        for line in Path('/proc/meminfo').read_text().splitlines():
            if line.startswith('MemTotal:'):
                return f'{int(line.split()[1]) / 2**20:.1f} GiB'
    except OSError:
        pass
    return 'n/a'


def load_average() -> str:
    """The load averages over 1, 5 and 15 minutes (Linux), or ``n/a``."""
    try:
        return ' '.join(Path('/proc/loadavg').read_text().split()[:3])
    except OSError:
        return 'n/a'


def torch_build() -> str:
    """MKL and oneDNN versions from torch's build configuration, if it names them."""
    parts = []
    for line in torch.__config__.show().splitlines():
        line = line.strip(' -')
        if 'Math Kernel Library Version' in line:
            parts.append('MKL ' + line.split('Version', 1)[1].split('-', 1)[0].strip())
        elif 'MKL-DNN' in line or line.startswith('oneDNN'):
            versions = [word for word in line.split() if word[:1] == 'v' and word[1:2].isdigit()]
            parts.append('oneDNN ' + (versions[0][1:] if versions else '?'))
        elif line.startswith('CPU capability usage'):
            parts.append(line.split(':', 1)[1].strip())
    return ', '.join(parts)


def framework_versions() -> dict[str, str]:
    """Versions of JAX and TensorFlow/Keras if their d2l_lib modules define DotProductAttention;
    otherwise why they are not compared. A value starting with the framework's name means compared."""
    found = {}
    for name in ('jax', 'tensorflow'):
        try:
            module = importlib.import_module(f'd2l_lib.{name}')
        except Exception as error:  # noqa: BLE001 - a module being written may fail to import in any way
            found[name] = f'not compared (d2l_lib.{name} does not import: {type(error).__name__})'
            continue
        if not hasattr(module, 'DotProductAttention'):
            found[name] = f'not compared (d2l_lib.{name} has no DotProductAttention yet)'
            continue
        if name == 'jax':
            import jax

            found[name] = f'jax {jax.__version__}'
        else:
            import keras
            import tensorflow as tf

            found[name] = f'tensorflow {tf.__version__}, keras {keras.__version__} ({keras.backend.backend()})'
    return found

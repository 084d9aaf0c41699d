"""d2l_lib: the reusable code of the book "Attention Scoring Functions".

Import it the way D2L code imports ``d2l``::

    from d2l_lib import torch as d2l

``d2l_lib.torch`` is generated from the notebooks' ``#@save`` cells by ``make lib``.
"""

__version__ = "0.1.0"

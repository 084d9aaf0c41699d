"""The command line's machinery: a verb, and the parser of a command line of verbs.

Below ``code_facts``, which renders the verbs' table, and the entry point, which holds the verbs themselves
(``booktools.__main__``: each verb's function, name, help and options together). It imports only ``project``.

- ``verbs``: what a verb is (:class:`~booktools.cli.verbs.Verb`), and the parsing of a command line that names one.
"""

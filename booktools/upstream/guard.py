"""The installed releases checked against the registry (``booktools.upstream.tools``), in one message format:
what the site build, the Sphinx extension and the nbval plugin run before their couplings can."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from booktools.upstream.tools import NOT_INSTALLED, REGISTRY, REQUIREMENTS, UPSTREAM, Upstream


class UpstreamChanged(ImportError):
    """An installed tool is not of the series the couplings to its insides were written for.

    An ImportError: the book's code that reaches into the tool cannot be trusted to import
    or to run against it (Sphinx reports one raised while it imports an extension as that
    extension's error, with this message).
    """


def tool(distribution: str) -> Upstream:
    """The tool ``distribution`` of :data:`UPSTREAM`.

    Raises:
        KeyError: if no coupling to it is listed.
    """
    for listed in UPSTREAM:
        if listed.distribution == distribution:
            return listed
    raise KeyError(f"{distribution} is not a tool of {REGISTRY}")


def series(release: str) -> str:
    """A release's series, its first two numbers (``0.17.1`` -> ``0.17``): a patch release of the same series is
    taken to keep the couplings (the requirements file still pins the exact one the outputs were made with)."""
    return ".".join(release.split(".")[:2])


def problem(listed: Upstream, installed: str, changed: str = "") -> str:
    """The one message for a tool whose insides ``booktools`` cannot trust as installed.

    ``changed`` says what differs when the release alone does not (nbval's method of another
    signature); by default, the release is of another series.
    """
    what = changed or f"booktools was written against {listed.release}"
    return (
        f"{listed.distribution} is {installed}, but {what}: check {listed.place_list()}, "
        f"then change the release in {REGISTRY} and the pin in {listed.requirements} together"
    )


def problems(installed: dict[str, str], tools: tuple[Upstream, ...] = UPSTREAM) -> list[str]:
    """Why the couplings to ``tools`` cannot be trusted with the ``installed`` releases (name -> release):
    [] if they can."""
    return [
        problem(listed, installed.get(listed.distribution, NOT_INSTALLED))
        for listed in tools
        if series(installed.get(listed.distribution, "")) != series(listed.release)
    ]


def installed_release(distribution: str) -> str:
    """The release of ``distribution`` installed in the running environment (:data:`NOT_INSTALLED` if none)."""
    try:
        return version(distribution)
    except PackageNotFoundError:
        return NOT_INSTALLED


def environment_tools(requirements: str = REQUIREMENTS) -> tuple[Upstream, ...]:
    """The tools installed in the environment that ``requirements`` describes (the book's, by default)."""
    return tuple(listed for listed in UPSTREAM if listed.requirements == requirements)


def installed_problems(tools: tuple[Upstream, ...] | None = None) -> list[str]:
    """:func:`problems` of ``tools`` (every tool of the running environment, by default) as installed."""
    chosen = environment_tools() if tools is None else tools
    return problems({listed.distribution: installed_release(listed.distribution) for listed in chosen}, chosen)


def require_releases(tools: tuple[Upstream, ...] | None = None) -> None:
    """Stop unless ``tools`` (every tool of the running environment, by default) are of their series.

    Raises:
        UpstreamChanged: naming each tool, its two releases and its places.
    """
    found = installed_problems(tools)
    if found:
        raise UpstreamChanged("\n".join(found))

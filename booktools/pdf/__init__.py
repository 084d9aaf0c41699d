"""The book as PDFs, one per edition and framework, printed from the built site (``make pdf``).

``document`` joins an edition's built pages into one print document with one
framework's code, ``printer`` prints it with Chromium, ``build`` runs both for
every edition and framework.
"""

"""Developer tools that read the code itself (the import graph of ``docs/architecture.md``)."""

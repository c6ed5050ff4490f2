"""The exceptions the package raises."""


class ContractError(ValueError):
    """A call that breaks the contract. str() is exactly the catalog message (the text
    SGLang's wrapper raises); `id` is the catalog id ("V14", "R6", "X-STRIDES")."""

    def __init__(self, message, id):
        super().__init__(message)
        self.id = id


class HarnessError(RuntimeError):
    """The harness could not do what was asked (a malformed request, an internal error)."""

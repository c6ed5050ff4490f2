"""The KDA decode-kernel conformance harness from Python: for each operator of the harness's
table (operators(), the default first), the contract (validate), the reference
(reference_step), the sample space (cases) and the suites against any callable (check), over
tensors of any DLPack producer. The work is done by the harness's C library (_lib.py says
where it is looked for)."""
from .cases import Case, CaseStats, case, case_stats, cases, config_line
from .checking import CaseResult, CheckReport, check, suite_case_line, suites
from .contract import Dims, reference_step, validate
from ._defaults import defaults
from .envelope import Envelope
from .errors import ContractError, HarnessError
from ._operators import error_ids, names as operators
from .plugin_so import PluginCallable, load_plugin
from ._version import version as _version

__version__ = _version()

__all__ = ["Case", "CaseResult", "CaseStats", "CheckReport", "ContractError", "Dims", "Envelope", "HarnessError", "PluginCallable",
           "case", "case_stats", "cases", "check", "config_line", "defaults", "error_ids", "load_plugin", "operators", "reference_step", "suite_case_line", "suites",
           "validate"]

# SPDX-License-Identifier: MIT
"""Runs rdma-core's own test suite (python3-pyverbs) over uroce and judges the outcomes.

Usage: rdma_core_suite.py [--markdown] SUITE_DIR [TEST_NAME...]

SUITE_DIR holds an unzipped copy of /usr/share/doc/rdma-core/tests as a directory named
`tests` (test_rdma_core.sh makes it); TEST_NAMEs are unittest names such as tests.test_qp or
tests.test_mr.MRTest.test_mr_rereg_pd (default: every module). The suite runs on the device
uroce0, GID index 0 (UROCE_IP chooses its address), in this process, as its own
run_tests.py would run it. Prints one line per test (PASS, SKIP with the suite's reason,
FAIL, ERROR), then the counts per module with the reasons for the skips.

Exits 0 when no test failed or erred and every skipped test was skipped for one of the
reasons listed below: a feature uroce does not have yet, something the host lacks, or (for
the mlx5 and EFA modules) a device of another vendor. A new skip is a change to look at,
as a failure is. 1 otherwise; 2 when the suite cannot be loaded. --markdown prints the
table in the form of docs/verbs.md.
"""
import collections
import importlib.machinery
import os
import re
import sys
import traceback
import unittest

# Modules for NVIDIA (mlx5) and Amazon (EFA) devices: the suite skips them itself on uroce0,
# whose direct-verbs calls say "not this device" (the libmlx5/libefa stand-ins), or for a
# reason of SKIPS, or because they need a PCI device named on the command line.
VENDOR = re.compile(r'^test_(mlx5_|efa)')
VENDOR_SKIPS = [
    (r'Can not run the test over non (MLX5|EFA) device|'
     r'Could not open mlx5 context \(This is not an MLX5 device\)', 'not an mlx5/EFA device'),
    (r'PCI device must be passed by the user', 'needs a PCI device (`--pci-dev`)'),
    (r'Query device real time is not supported',
     'the device clock (`ibv_query_rt_values_ex`)'),
]

# Why a test of the other modules may be skipped: the suite's reason, and what it means.
SKIPS = [
    (r'Create XRCD is not supported', 'XRC'),
    (r'(Create )?Extended CQ( with Parent Domain)? is not supported',
     'extended CQs (`ibv_create_cq_ex`)'),
    (r'Reg MR with MW access is not supported|Create memory window of type \d+ is not '
     r'supported|Create custom mr with additional access flags 18 is not supported',
     'memory windows'),
    (r'ODP is not supported - No ODP caps', 'on-demand paging'),
    (r'Device memory is not supported', 'device memory'),
    (r'(Allocating dmabuf is not supported by|Device|Lack of permission to access) '
     r'/dev/dri/renderD\d+( is not present)?',
     "dma-buf (Debian's pyverbs allocates none: built without GPU support)"),
    (r'Create QP type 8 is not supported|Create Raw Packet QP .*is not supported',
     'raw packet QPs'),
    (r'cuda-python .* must be installed to run CUDA tests', 'CUDA'),
    (r"Device uroce0 doesn't have net interface",
     'rdma_cm (issue 16): uroce0 has no network interface in sysfs'),
    (r'Importing a device is not supported',
     'imports: no kernel objects to share (`ibv_import_device`)'),
    (r'There are no huge pages of size 2M allocated',
     'the host has no 2 MiB huge pages (`vm.nr_hugepages`)'),
]
SKIPS = [(re.compile('^(' + rx + ')$'), why) for rx, why in SKIPS]
VENDOR_SKIPS = [(re.compile('^(' + rx + ')$'), why) for rx, why in VENDOR_SKIPS]
OUTCOMES = ('passed', 'skipped', 'failed', 'errors')


def skip_why(module, reason):
    """What a skip means, or None when the reason is not an expected one."""
    for rx, why in (VENDOR_SKIPS + SKIPS if VENDOR.match(module) else SKIPS):
        if rx.match(reason):
            return why
    return None


class Recorder(unittest.TestResult):
    """Keeps each test's outcome and, for a skip, the reason the suite gave."""

    def __init__(self):
        super().__init__()
        self.outcome = collections.OrderedDict()  # test id -> (outcome, detail)

    def _put(self, test, outcome, detail=''):
        self.outcome[test.id()] = (outcome, detail)
        line = f'{outcome.upper():8} {test.id()}'
        if detail and outcome == 'skipped':
            line += f'  ({detail})'
        print(line, flush=True)
        if detail and outcome != 'skipped':
            print('    ' + detail.rstrip().replace('\n', '\n    '), flush=True)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._put(test, 'passed')

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._put(test, 'skipped', reason)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._put(test, 'failed', ''.join(traceback.format_exception(*err)))

    def addError(self, test, err):
        super().addError(test, err)
        self._put(test, 'errors', ''.join(traceback.format_exception(*err)))

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self._put(test, 'passed')

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self._put(test, 'failed', 'unexpected success')


def module_of(test_id):
    # tests.test_qp.QPTest.test_x, or a fixture's pseudo-test such as
    # "setUpClass (tests.test_qp.QPTest)".
    m = re.search(r'tests\.(test_\w+)', test_id)
    return m.group(1) if m else test_id


def main():
    args = sys.argv[1:]
    markdown = bool(args) and args[0] == '--markdown'
    if markdown:
        args = args[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    suite_dir = os.path.abspath(args[0])
    names = args[1:]
    tests_dir = os.path.join(suite_dir, 'tests')
    # The suite's modules import `args_parser` and `tests.*`; its parser reads sys.argv.
    sys.path[:0] = [tests_dir, suite_dir]
    sys.argv = [sys.argv[0], '--dev', 'uroce0', '--gid', '0']
    try:
        from args_parser import parser
        parser.parse_args()
        tests = importlib.machinery.SourceFileLoader(
            'tests', os.path.join(tests_dir, '__init__.py')).load_module()
    except Exception:
        traceback.print_exc()
        print('FAIL: the suite did not load', file=sys.stderr)
        return 2
    loader = unittest.TestLoader()
    suite = loader.loadTestsFromNames(names) if names else loader.loadTestsFromModule(tests)
    result = Recorder()
    suite.run(result)

    counts = collections.OrderedDict()
    whys = collections.OrderedDict()
    unexpected = []
    for test_id, (outcome, detail) in sorted(result.outcome.items()):
        mod = module_of(test_id)
        counts.setdefault(mod, collections.Counter())[outcome] += 1
        whys.setdefault(mod, collections.Counter())
        if outcome == 'skipped':
            why = skip_why(mod, detail)
            if why is None:
                unexpected.append(f'{test_id}: {detail}')
                why = f'unexpected: {detail}'
            whys[mod][why] += 1
    total = collections.Counter()
    for c in counts.values():
        total.update(c)

    print()
    if markdown:
        # The vendor modules in one row each: test_mlx5_* and test_efa*.
        rows, rwhys = collections.OrderedDict(), collections.OrderedDict()
        for mod, c in counts.items():
            m = VENDOR.match(mod)
            row = f'test_{m.group(1)}*' if m else mod
            rows.setdefault(row, collections.Counter()).update(c)
            rwhys.setdefault(row, collections.Counter()).update(whys[mod])
        counts, whys = rows, rwhys
        print('| module | passed | skipped | why |')
        print('|---|---|---|---|')
        for mod, c in counts.items():
            why = ', '.join(w if n == c['skipped'] else f'{w} ({n})'
                            for w, n in whys[mod].most_common())
            bad = f' **{c["failed"]} failed, {c["errors"]} errors**' \
                if c['failed'] or c['errors'] else ''
            print(f'| `{mod}` | {c["passed"]} | {c["skipped"]} | {why}{bad} |')
        print(f'| total | {total["passed"]} | {total["skipped"]} | |')
    else:
        print(f'{"module":24} ' + ' '.join(f'{o:>7}' for o in OUTCOMES) + '  skipped for')
        for mod, c in counts.items():
            why = '; '.join(f'{n} {w}' for w, n in whys[mod].most_common())
            print(f'{mod:24} ' + ' '.join(f'{c[o]:7}' for o in OUTCOMES) + f'  {why}')
        print(f'{"total":24} ' + ' '.join(f'{total[o]:7}' for o in OUTCOMES))
    for u in unexpected:
        print(f'UNEXPECTED SKIP {u}')
    print(f'\n{sum(total.values())} tests: {total["passed"]} passed, {total["skipped"]} skipped, '
          f'{total["failed"]} failed, {total["errors"]} errors, '
          f'{len(unexpected)} skipped for an unexpected reason')
    return 1 if total['failed'] or total['errors'] or unexpected or not total else 0


if __name__ == '__main__':
    sys.exit(main())

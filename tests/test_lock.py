"""One writer per folder: while a build or an experiment holds its folder's lock, a second
one is refused at once, naming the holder; a holder that is killed frees the lock (the
operating system drops it), so the next run takes it; a run that ends leaves no lock file.
The holders here are real processes, so the lock is what the operating system says."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from render.build import BuildLock, LockError
from worksheet.errors import ExperimentError
from worksheet.experiment import _Lock

ROOT = Path(__file__).parent.parent
HOLD = """
import sys, time
from pathlib import Path
from render.build import BuildLock
with BuildLock(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(120)
"""


def holder(out: Path) -> subprocess.Popen[str]:
    """A process that holds ``out``'s build lock until it is stopped."""
    process = subprocess.Popen([sys.executable, "-c", HOLD, str(out)], stdout=subprocess.PIPE,
                               text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert process.stdout is not None and process.stdout.readline() == "held\n"
    return process


def test_a_second_build_is_refused_at_once_naming_the_holder(tmp_path: Path) -> None:
    process = holder(tmp_path)
    try:
        started = time.monotonic()
        with pytest.raises(LockError) as refused, BuildLock(tmp_path):
            pass
        assert time.monotonic() - started < 1
        assert str(refused.value) == (f"another build (pid {process.pid}) is writing into "
                                      f"{tmp_path}; wait for it to finish (a `lecture serve` "
                                      "there: stop it)")
    finally:
        process.kill()
        process.wait()


def test_a_killed_holder_leaves_a_lock_the_next_run_simply_takes(tmp_path: Path) -> None:
    process = holder(tmp_path)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert (tmp_path / ".build.lock").is_file()  # no one removed it
    with BuildLock(tmp_path):
        assert (tmp_path / ".build.lock").read_text() == str(os.getpid())
    assert not (tmp_path / ".build.lock").exists()


def test_one_process_cannot_take_its_own_folder_twice(tmp_path: Path) -> None:
    with BuildLock(tmp_path), pytest.raises(LockError, match="another build"), \
            BuildLock(tmp_path):
        pass
    with BuildLock(tmp_path):  # and the first hold, released, is free again
        pass


def test_a_second_experiment_is_refused_naming_its_folder(tmp_path: Path) -> None:
    progress = tmp_path / "progress"
    with _Lock(progress), pytest.raises(ExperimentError) as refused, _Lock(progress):
        pass
    assert str(refused.value) == (f"{tmp_path}: another experiment (pid {os.getpid()}) is "
                                  "writing here; wait for it or use another --out")
    assert not (progress / "lock").exists()


def test_a_folder_that_cannot_be_written_is_named(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    with pytest.raises(LockError, match=rf"cannot lock {blocker}/deck/\.build\.lock \("), \
            BuildLock(blocker / "deck"):
        pass

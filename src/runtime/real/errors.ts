/**
 * Why a real run gives no results: the CLI prints the message as one line and exits 1
 * (RunFailed) or 3 (LateRun, the host could not keep up in wallclock mode).
 */
export class RunFailed extends Error {
  override name = 'RunFailed';
}

/**
 * A wallclock run whose frames reached firmware after their emulated arrival, or whose nodes were
 * too busy to report: its results are not those of the scenario (exit status 3, one line;
 * `--allow-late` keeps them, as warnings, when there are any).
 */
export class LateRun extends Error {
  override name = 'LateRun';
}

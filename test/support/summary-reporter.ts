// Prints one plain closing line, "tests: N passed, N failed, N skipped", that any CI can read.
interface TaskLike {
  type: string;
  mode?: string;
  result?: { state?: string };
  tasks?: TaskLike[];
}

function count(tasks: TaskLike[], totals: { passed: number; failed: number; skipped: number }) {
  for (const task of tasks) {
    if (task.tasks) count(task.tasks, totals);
    if (task.type !== 'test') continue;
    if (task.result?.state === 'pass') totals.passed += 1;
    else if (task.result?.state === 'fail') totals.failed += 1;
    else totals.skipped += 1;
  }
}

export default class SummaryReporter {
  onFinished(files: TaskLike[] = [], errors: unknown[] = []) {
    const totals = { passed: 0, failed: 0, skipped: 0 };
    count(files, totals);
    // A file that failed to load has no tests but must still fail the run.
    const failed =
      totals.failed +
      files.filter((file) => file.result?.state === 'fail' && !file.tasks?.length).length +
      errors.length;
    process.stdout.write(`\ntests: ${totals.passed} passed, ${failed} failed, ${totals.skipped} skipped\n`);
  }
}

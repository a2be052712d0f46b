import Dispatch
import Synchronization

/// Runs the jobs of tasks started on a connection's loop (see
/// `Connection.answerCallsOnLoop`) on the loop queue itself.
///
/// Such a task is woken where its reply was read: the poll thread handles a
/// ready socket on the queue, the reply is matched to its call, and the
/// resumed task runs right after, on the same thread, before the thread
/// polls again. A forwarded call then costs no thread hand-off at all,
/// where the global executor cost two (a worker to start the call, another
/// to resume it) and the context switches that come with them.
///
/// Jobs run on the queue only at the end of a turn of the loop (never inside
/// its dispatch), in the order they were enqueued.
final class LoopExecutor: TaskExecutor {
    private let loop: EventLoop
    private let jobs = Mutex<[UnownedJob]>([])
    /// The last batch's buffer, emptied, which the next batch is swapped
    /// into: taking the jobs allocates nothing (a new empty array left
    /// behind cost the next `enqueue` an allocation, twice a forwarded call).
    /// nonisolated(unsafe): touched only by `runJobs`, which runs on the
    /// loop queue and never inside itself (jobs run in the outermost turn).
    nonisolated(unsafe) private var spare: [UnownedJob] = []

    init(loop: EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let first = jobs.withLock { jobs in
            jobs.append(job)
            return jobs.count == 1
        }
        // Within a turn of the loop, the turn runs the job before it ends;
        // from anywhere else, a turn of its own is queued.
        guard first, !loop.isInTurn else { return }
        loop.queue.async { [self] in loop.turn {} }
    }

    /// Runs jobs until none is left, those they enqueue included. On the queue.
    func runJobs() {
        while true {
            var batch = spare
            spare = []
            jobs.withLock { swap(&batch, &$0) }
            defer {
                batch.removeAll(keepingCapacity: true)
                spare = batch
            }
            if batch.isEmpty { return }
            // The loop keeps what a job sends while others of the batch wait (`EventLoop.jobsWaiting`).
            loop.jobsWaiting = batch.count
            for job in batch {
                loop.jobsWaiting -= 1
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
    }
}

//! [`WorkerReader`]: the [`DocumentReader`] and [`SheetReader`] ports, reading each file in a
//! worker process (see [`worker`]) with a wall-clock limit, a memory limit and a cap on how many
//! files are read at once, handed out fairly among users ([`queue`]); and the format readers
//! themselves ([`read_in_process`], [`spreadsheet`]), one module per format, the documents all
//! writing the same layout ([`layout`]).

mod docx;
mod html;
mod layout;
mod page_layout;
mod pdf;
pub mod queue;
pub mod spreadsheet;
mod text;
pub mod worker;

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;

pub use docx::read_docx;
pub use html::read_html;
pub use pdf::read_pdf;
pub use text::{decode, read_text};

use crate::config::ReaderConfig;
use crate::domain::auth::UserId;
use crate::domain::intake::{MediaType, ReadDocument, ReadError};
use crate::domain::statements::sheet::{Grid, SheetFormat};
use crate::ports::reader::{DocumentReader, SheetReader};
use queue::FairQueue;
use worker::{Job, WorkerArgs};

/// How long a file may take to read when the caller gives no budget (tests, the evaluation).
pub const UNBOUNDED_READ: Duration = Duration::from_secs(24 * 60 * 60);

/// Reads a file of `media_type` here, in this process: what the worker runs, and what tests call.
/// `budget` is the time the file may take: a reader that can tell early that a file will take
/// longer refuses it then ([`ReadError::TooCostly`]) rather than at the limit.
///
/// # Errors
/// The format reader's [`ReadError`].
pub fn read_in_process(
    media_type: MediaType,
    bytes: &[u8],
    max_text_bytes: usize,
    budget: Duration,
) -> Result<ReadDocument, ReadError> {
    match media_type {
        MediaType::Pdf => read_pdf(bytes, max_text_bytes, budget),
        MediaType::Html => read_html(bytes, max_text_bytes),
        MediaType::Docx => read_docx(bytes, max_text_bytes),
        MediaType::Text => read_text(bytes, max_text_bytes),
    }
}

/// The limits a file is read within.
#[derive(Clone, Debug)]
pub struct ReaderLimits {
    /// The executable started as the worker (`creditflow` itself).
    pub worker: PathBuf,
    pub max_input_bytes: u64,
    pub max_text_bytes: usize,
    pub timeout: Duration,
    pub memory_mib: u64,
    /// Files read at once; more wait up to `queue_wait`, then [`ReadError::Busy`].
    pub concurrency: usize,
    /// Files of one user read at once; their others wait in turn (see [`queue`]).
    pub per_user: usize,
    pub queue_wait: Duration,
}

/// How long a file waits for a free reader before the upload is answered 503.
const QUEUE_WAIT: Duration = Duration::from_secs(10);

pub struct WorkerReader {
    limits: ReaderLimits,
    readers: Arc<FairQueue<UserId>>,
}

impl WorkerReader {
    /// The configured reader; the worker is this executable unless `READER_WORKER` names another.
    pub fn from_config(config: &ReaderConfig, max_text_bytes: usize) -> Self {
        let worker = config
            .worker
            .clone()
            .or_else(|| std::env::current_exe().ok())
            .unwrap_or_else(|| PathBuf::from("creditflow"));
        Self::new(ReaderLimits {
            worker,
            max_input_bytes: config.upload_max_bytes,
            max_text_bytes,
            timeout: config.timeout,
            memory_mib: config.memory_mib,
            concurrency: config.concurrency,
            per_user: config.per_user,
            queue_wait: QUEUE_WAIT,
        })
    }

    pub fn new(limits: ReaderLimits) -> Self {
        let readers = FairQueue::new(limits.concurrency, limits.per_user);
        Self { limits, readers }
    }

    /// Reads `bytes` as `job` in a worker, in `user`'s turn.
    async fn read_in_turn<T: serde::de::DeserializeOwned>(
        &self,
        user: UserId,
        job: Job,
        bytes: Bytes,
    ) -> Result<T, ReadError> {
        let Some(_reader) = self.readers.acquire(user, self.limits.queue_wait).await else {
            return Err(ReadError::Busy);
        };
        self.run_worker(job, bytes).await
    }

    async fn run_worker<T: serde::de::DeserializeOwned>(&self, job: Job, bytes: Bytes) -> Result<T, ReadError> {
        let limits = &self.limits;
        let args = WorkerArgs {
            job,
            max_input_bytes: limits.max_input_bytes,
            max_text_bytes: limits.max_text_bytes,
            memory_mib: limits.memory_mib,
            cpu_seconds: limits.timeout.as_secs().max(1),
        };
        let mut child = Command::new(&limits.worker)
            .args(args.to_args())
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| ReadError::Failed(format!("cannot start the reader {}: {e}", limits.worker.display())))?;
        let mut stdin = child.stdin.take().ok_or_else(|| ReadError::Failed("no stdin".into()))?;
        let mut stdout = child.stdout.take().ok_or_else(|| ReadError::Failed("no stdout".into()))?;
        // JSON escaping at most sextuples a text (\u00XX for control characters).
        let max_output = (limits.max_text_bytes as u64).saturating_mul(6).saturating_add(1 << 20);
        let work = async {
            // The worker may stop reading early (a limit hit); that is not an error here.
            let feed = async move {
                let _ = stdin.write_all(&bytes).await;
                drop(stdin);
            };
            let mut output = Vec::new();
            let mut limited = (&mut stdout).take(max_output);
            let collect = limited.read_to_end(&mut output);
            let ((), read) = tokio::join!(feed, collect);
            let status = child.wait().await;
            (read, status, output)
        };
        let Ok((read, status, output)) = tokio::time::timeout(limits.timeout, work).await else {
            // `child` is dropped with the future: kill_on_drop ends the worker.
            return Err(ReadError::TimedOut { seconds: limits.timeout.as_secs() });
        };
        let status = status.map_err(|e| ReadError::Failed(format!("the reader did not finish: {e}")))?;
        if read.is_err() || !status.success() {
            // Killed by its memory or CPU limit, or crashed in a parser: the file did that.
            return Err(ReadError::OutOfMemory { limit_mib: limits.memory_mib });
        }
        serde_json::from_slice::<Result<T, ReadError>>(&output)
            .map_err(|e| ReadError::Failed(format!("the reader's answer is not readable: {e}")))?
    }
}

#[async_trait]
impl DocumentReader for WorkerReader {
    async fn read(&self, reader: UserId, media_type: MediaType, bytes: Bytes) -> Result<ReadDocument, ReadError> {
        let read = self.read_in_turn(reader, Job::Document(media_type), bytes).await;
        if let Err(ReadError::ParserPanicked { media_type, panic }) = &read {
            // The client is told the file could not be read; what the parser said is for us.
            tracing::warn!(media_type = %media_type, panic = %panic, "a document parser panicked on an upload");
        }
        read
    }
}

#[async_trait]
impl SheetReader for WorkerReader {
    async fn read_sheet(&self, reader: UserId, format: SheetFormat, bytes: Bytes) -> Result<Grid, ReadError> {
        let read = self.read_in_turn(reader, Job::Sheet(format), bytes).await;
        if let Err(ReadError::ParserPanicked { media_type, panic }) = &read {
            tracing::warn!(media_type = %media_type, panic = %panic, "a spreadsheet parser panicked on an upload");
        }
        read
    }
}

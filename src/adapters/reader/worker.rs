//! The reader's worker process: the same binary started as `creditflow read-document`, reading
//! one file (a document, or a statements spreadsheet) from stdin and writing what it read as JSON
//! to stdout.
//!
//! Parsers of untrusted files can be made to allocate gigabytes, overflow their stack, loop, or
//! panic; the measurements behind this design (docs/INTAKE-CRATES.md) saw five crates abort the
//! whole process. A panic can be caught, an abort cannot, and a thread cannot be stopped. A
//! process can: the worker caps its own address space and CPU time before it reads a byte, and
//! the service kills it at the wall-clock limit. Whatever happens to the worker, the service and
//! the requests it is serving go on. The worker gets no environment from the service (no
//! database URL, no keys), and has nothing to do but read.

use std::io::{Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::ExitCode;
use std::time::Duration;

use rlimit::Resource;

use super::read_in_process;
use super::spreadsheet::read_grid;
use crate::domain::intake::{MediaType, ReadDocument, ReadError};
use crate::domain::statements::sheet::SheetFormat;

/// The first argument that makes the binary a worker.
pub const SUBCOMMAND: &str = "read-document";

/// What the worker reads the file as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    /// A document, into its text ([`ReadDocument`]).
    Document(MediaType),
    /// A statements spreadsheet, into its cells ([`crate::domain::statements::sheet::Grid`]).
    Sheet(SheetFormat),
}

impl Job {
    /// On the command line: a document's media type, or `sheet/xlsx`, `sheet/csv`.
    fn to_arg(self) -> String {
        match self {
            Job::Document(media_type) => media_type.mime().to_owned(),
            Job::Sheet(format) => format!("sheet/{}", format.name().to_ascii_lowercase()),
        }
    }

    fn parse(arg: &str) -> Option<Self> {
        match arg {
            "sheet/xlsx" => Some(Job::Sheet(SheetFormat::Xlsx)),
            "sheet/csv" => Some(Job::Sheet(SheetFormat::Csv)),
            media => MediaType::from_mime(media).map(Job::Document),
        }
    }

    /// The format named in a parser failure's message.
    fn format_name(self) -> String {
        match self {
            Job::Document(media_type) => media_type.extension().to_ascii_uppercase(),
            Job::Sheet(format) => format.name().to_owned(),
        }
    }
}

/// What the worker is told on its command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerArgs {
    pub job: Job,
    pub max_input_bytes: u64,
    pub max_text_bytes: usize,
    pub memory_mib: u64,
    /// Its CPU limit, and the read budget a reader plans against (the service's wall-clock limit).
    pub cpu_seconds: u64,
}

impl WorkerArgs {
    pub fn to_args(&self) -> Vec<String> {
        vec![
            SUBCOMMAND.to_owned(),
            self.job.to_arg(),
            self.max_input_bytes.to_string(),
            self.max_text_bytes.to_string(),
            self.memory_mib.to_string(),
            self.cpu_seconds.to_string(),
        ]
    }

    fn parse(args: &[String]) -> Option<Self> {
        match args {
            [_, job, input, text, memory, cpu] => Some(WorkerArgs {
                job: Job::parse(job)?,
                max_input_bytes: input.parse().ok()?,
                max_text_bytes: text.parse().ok()?,
                memory_mib: memory.parse().ok()?,
                cpu_seconds: cpu.parse().ok()?,
            }),
            _ => None,
        }
    }
}

/// `Some(exit code)` when the process was started as a worker (and has done its work), `None`
/// when it is the service.
pub fn run_if_requested() -> Option<ExitCode> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) != Some(SUBCOMMAND) {
        return None;
    }
    let Some(args) = WorkerArgs::parse(&args) else {
        eprintln!("usage: creditflow {SUBCOMMAND} MEDIA_TYPE|sheet/FORMAT MAX_INPUT MAX_TEXT MEMORY_MIB CPU_SECONDS");
        return Some(ExitCode::from(2));
    };
    Some(run(&args))
}

fn run(args: &WorkerArgs) -> ExitCode {
    // A parser's panic is reported as the file's problem, in the answer, not printed.
    std::panic::set_hook(Box::new(|_| {}));
    let memory = args.memory_mib.saturating_mul(1024 * 1024);
    if rlimit::setrlimit(Resource::AS, memory, memory).is_err()
        || rlimit::setrlimit(Resource::CPU, args.cpu_seconds, args.cpu_seconds.saturating_add(1)).is_err()
    {
        eprintln!("creditflow {SUBCOMMAND}: cannot set resource limits");
        return ExitCode::from(3);
    }
    let mut input = Vec::new();
    if std::io::stdin().take(args.max_input_bytes.saturating_add(1)).read_to_end(&mut input).is_err()
        || input.len() as u64 > args.max_input_bytes
    {
        eprintln!("creditflow {SUBCOMMAND}: input missing or over its limit");
        return ExitCode::from(4);
    }
    let budget = Duration::from_secs(args.cpu_seconds);
    let json = match args.job {
        Job::Document(media_type) => serde_json::to_vec(&read_caught(media_type, &input, args.max_text_bytes, budget)),
        Job::Sheet(format) => serde_json::to_vec(&caught(args.job, || read_grid(format, &input, args.max_text_bytes))),
    };
    let Ok(json) = json else {
        return ExitCode::from(5);
    };
    let mut stdout = std::io::stdout().lock();
    if stdout.write_all(&json).and_then(|()| stdout.flush()).is_err() {
        return ExitCode::from(6);
    }
    ExitCode::SUCCESS
}

/// Reads in this process, a parser's panic reported as [`ReadError::ParserPanicked`].
pub fn read_caught(
    media_type: MediaType,
    bytes: &[u8],
    max_text_bytes: usize,
    budget: Duration,
) -> Result<ReadDocument, ReadError> {
    caught(Job::Document(media_type), || read_in_process(media_type, bytes, max_text_bytes, budget))
}

/// Runs a reader, its panic caught as [`ReadError::ParserPanicked`] with the panic's message (which
/// the service logs and never sends).
fn caught<T>(job: Job, read: impl FnOnce() -> Result<T, ReadError>) -> Result<T, ReadError> {
    catch_unwind(AssertUnwindSafe(read)).unwrap_or_else(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_owned());
        Err(ReadError::ParserPanicked { media_type: job.format_name(), panic: message })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parser_panic_is_reported_with_a_fixed_reason_and_its_message_kept_for_the_log() {
        // What pdf-extract says on some fonts it cannot read.
        let panicking = || -> Result<ReadDocument, ReadError> { panic!("called `Option::unwrap()` on a `None` value") };

        let error = caught(Job::Document(MediaType::Pdf), panicking).expect_err("the panic is caught");

        let ReadError::ParserPanicked { media_type, panic } = &error else { panic!("{error:?}") };
        assert_eq!(media_type, "PDF");
        assert!(panic.contains("called `Option::unwrap()` on a `None` value"), "{panic}");
        assert!(!error.to_string().contains("unwrap"), "{error}");
    }

    #[test]
    fn arguments_round_trip() {
        for job in [Job::Document(MediaType::Docx), Job::Sheet(SheetFormat::Xlsx), Job::Sheet(SheetFormat::Csv)] {
            let args = WorkerArgs {
                job,
                max_input_bytes: 25 << 20,
                max_text_bytes: 5 << 20,
                memory_mib: 1024,
                cpu_seconds: 30,
            };
            let mut argv = args.to_args();
            assert_eq!(argv[0], SUBCOMMAND);
            assert_eq!(WorkerArgs::parse(&argv), Some(args));
            argv.pop();
            assert_eq!(WorkerArgs::parse(&argv), None);
        }
    }
}

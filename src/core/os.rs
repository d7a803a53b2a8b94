//! What differs between operating systems, in one place: child processes,
//! signals, whether standard output's reader is still there, and how many
//! physical cores the machine has.
//!
//! An engine started as a child process, and everything it starts, is
//! ended as one tree with the runner however the runner ends. On Unix the child
//! leads its own process group (a wrapper script's engine is in it too),
//! which a kill ends whole, and on Linux the child is sent SIGKILL by the
//! kernel when the thread that started it dies (`PR_SET_PDEATHSIG`: a
//! runner killed hard, out of memory or with its terminal leaves no seat
//! behind). On Windows each child is put in a job object that ends its
//! processes when it is closed: by [`ChildTree::kill`], or by Windows when
//! the runner exits for any reason.

use std::process::{Child, Command};

/// Sets up `command` so that its process and children form one tree.
pub fn prepare(command: &mut Command) {
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(command, 0);
    #[cfg(target_os = "linux")]
    // SAFETY: the closure runs in the child between fork and exec and only
    // calls prctl(2), which is async-signal-safe and touches no memory.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(command, || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    #[cfg(not(unix))]
    let _ = command;
}

/// A started child's tree: what ends it whole.
pub struct ChildTree {
    #[cfg(windows)]
    job: Option<windows::Job>,
}

impl ChildTree {
    /// Takes charge of `child`'s tree (on Windows, puts it in a job of its
    /// own; if Windows refuses, the child alone is ended by [`kill`]).
    ///
    /// [`kill`]: ChildTree::kill
    pub fn adopt(child: &Child) -> ChildTree {
        #[cfg(windows)]
        return ChildTree {
            job: windows::Job::holding(child),
        };
        #[cfg(not(windows))]
        {
            let _ = child;
            ChildTree {}
        }
    }

    /// Ends the child and everything it started, and reaps the child.
    pub fn kill(&mut self, child: &mut Child) {
        kill_group(child.id());
        #[cfg(windows)]
        if let Some(job) = self.job.take() {
            job.terminate();
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// Ends this process when the one that started it ends: a GUI that
/// starts kosumi through a shell and ends that shell (KaTrain) leaves no
/// kosumi running. Linux: the kernel's parent-death signal (SIGTERM).
/// Windows: a thread waits on the parent process (found in the system's
/// process list) and exits when it ends. Elsewhere nothing is done; the
/// process then ends when its input closes and its answers are written.
pub fn end_with_parent() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with PR_SET_PDEATHSIG takes a signal number and
    // touches no memory.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
    }
    #[cfg(windows)]
    windows::end_with_parent();
}

/// A shell command line as a command: `sh -c 'exec LINE'` (the shell
/// becomes the engine, so that no shell holds the pipes open after it is
/// gone), `cmd /C LINE` on Windows.
pub fn shell(command_line: &str) -> Command {
    #[cfg(windows)]
    {
        let mut command = Command::new("cmd");
        command.args(["/C", command_line]);
        command
    }
    #[cfg(not(windows))]
    {
        let mut command = Command::new("sh");
        command.args(["-c", &format!("exec {command_line}")]);
        command
    }
}

/// The machine's physical cores (a core's second hardware thread not
/// counted), where the system says: Linux's CPU topology in sysfs, macOS's
/// `hw.physicalcpu`, Windows's processor cores.
pub fn physical_cores() -> Option<usize> {
    #[cfg(target_os = "linux")]
    {
        // Each online processor's (package, core); a core's hardware
        // threads share one.
        let mut cores = std::collections::HashSet::new();
        for entry in std::fs::read_dir("/sys/devices/system/cpu").ok()?.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let Some(number) = name.strip_prefix("cpu") else {
                continue;
            };
            if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            let read = |file: &str| std::fs::read_to_string(entry.path().join(file)).ok();
            if read("online").is_some_and(|v| v.trim() == "0") {
                continue;
            }
            let (Some(package), Some(core)) = (
                read("topology/physical_package_id"),
                read("topology/core_id"),
            ) else {
                continue;
            };
            cores.insert((package.trim().to_string(), core.trim().to_string()));
        }
        (!cores.is_empty()).then_some(cores.len())
    }
    #[cfg(target_os = "macos")]
    {
        let mut cores: libc::c_int = 0;
        let mut size = std::mem::size_of::<libc::c_int>();
        // SAFETY: sysctlbyname(3) writes one int into `cores`, whose size
        // it is given.
        let done = unsafe {
            libc::sysctlbyname(
                c"hw.physicalcpu".as_ptr(),
                (&mut cores as *mut libc::c_int).cast(),
                &mut size,
                std::ptr::null_mut(),
                0,
            )
        };
        (done == 0 && cores > 0).then_some(cores as usize)
    }
    #[cfg(windows)]
    {
        windows::physical_cores()
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
    {
        None
    }
}

/// Whether standard output's reader has gone: on Unix, a pipe or socket
/// whose other end is closed reports an error or hang-up to `poll`;
/// elsewhere it cannot be told (`false`).
pub fn stdout_reader_gone() -> bool {
    #[cfg(unix)]
    {
        let mut fd = libc::pollfd {
            fd: 1,
            events: 0,
            revents: 0,
        };
        // SAFETY: poll(2) on one descriptor record of ours, no waiting.
        let ready = unsafe { libc::poll(&mut fd, 1, 0) };
        ready > 0 && fd.revents & (libc::POLLERR | libc::POLLHUP | libc::POLLNVAL) != 0
    }
    #[cfg(not(unix))]
    {
        false
    }
}

/// Lets a closed output pipe end the process quietly, as a Unix tool ends
/// when its reader (`head`) has what it wanted: SIGPIPE's default action
/// (Rust ignores it). Nothing elsewhere. Call before any thread starts.
pub fn end_quietly_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: restoring a signal's default action touches no memory.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Ctrl+Break in Windows' C runtime (`signal.h`'s `SIGBREAK`), which the
/// libc crate does not name.
#[cfg(windows)]
const SIGBREAK: libc::c_int = 21;

/// The stop signal noted (0: none yet).
static STOP_SIGNAL: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

extern "C" fn note_stop_signal(signal: libc::c_int) {
    STOP_SIGNAL.store(signal, std::sync::atomic::Ordering::SeqCst);
}

/// Notes SIGTERM and SIGINT (Ctrl+C; Ctrl+Break too on Windows) rather
/// than dying of them: [`stop_signal`] then says which came, for a thread
/// that watches to end things in order.
pub fn catch_stop_signals() {
    let handler = note_stop_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    // SAFETY: the handler only stores into an atomic, which is
    // async-signal-safe; signal(2) touches no memory of ours.
    unsafe {
        libc::signal(libc::SIGTERM, handler);
        libc::signal(libc::SIGINT, handler);
        #[cfg(windows)]
        libc::signal(SIGBREAK, handler);
    }
}

/// The stop signal [`catch_stop_signals`] noted, if one came.
pub fn stop_signal() -> Option<i32> {
    match STOP_SIGNAL.load(std::sync::atomic::Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// Gives SIGTERM and SIGINT their default actions back.
pub fn default_stop_signals() {
    // SAFETY: restoring the default actions touches no memory.
    unsafe {
        libc::signal(libc::SIGTERM, libc::SIG_DFL);
        libc::signal(libc::SIGINT, libc::SIG_DFL);
    }
}

/// Ends the process group child `id` leads ([`prepare`]d), on Unix; on
/// Windows each child's job object ends it as this process exits.
pub fn kill_group(id: u32) {
    #[cfg(unix)]
    // SAFETY: kill(2) on a process group a child leads.
    unsafe {
        libc::kill(-(id as i32), libc::SIGKILL);
    }
    #[cfg(not(unix))]
    let _ = id;
}

#[cfg(windows)]
mod windows {
    use std::os::windows::io::AsRawHandle;
    use std::process::Child;
    use windows_sys::Win32::Foundation::{CloseHandle, HANDLE, INVALID_HANDLE_VALUE};
    use windows_sys::Win32::System::Diagnostics::ToolHelp::{
        CreateToolhelp32Snapshot, PROCESSENTRY32W, Process32FirstW, Process32NextW,
        TH32CS_SNAPPROCESS,
    };
    use windows_sys::Win32::System::JobObjects::{
        AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
        JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectExtendedLimitInformation,
        SetInformationJobObject, TerminateJobObject,
    };
    use windows_sys::Win32::System::Threading::{
        INFINITE, OpenProcess, PROCESS_SYNCHRONIZE, WaitForSingleObject,
    };

    /// The processor cores the system lists (each once, whatever its
    /// hardware threads).
    pub fn physical_cores() -> Option<usize> {
        use windows_sys::Win32::System::SystemInformation::{
            GetLogicalProcessorInformation, RelationProcessorCore,
            SYSTEM_LOGICAL_PROCESSOR_INFORMATION,
        };
        let mut bytes = 0u32;
        // SAFETY: asked first with no buffer for the size, then with a
        // buffer of at least that many bytes, read only as far as written.
        unsafe {
            GetLogicalProcessorInformation(std::ptr::null_mut(), &mut bytes);
            let entry = std::mem::size_of::<SYSTEM_LOGICAL_PROCESSOR_INFORMATION>();
            let mut entries = vec![
                SYSTEM_LOGICAL_PROCESSOR_INFORMATION::default();
                (bytes as usize).div_ceil(entry)
            ];
            if GetLogicalProcessorInformation(entries.as_mut_ptr(), &mut bytes) == 0 {
                return None;
            }
            let written = &entries[..(bytes as usize / entry).min(entries.len())];
            let cores = written
                .iter()
                .filter(|e| e.Relationship == RelationProcessorCore)
                .count();
            (cores > 0).then_some(cores)
        }
    }

    /// The id of the process that started this one, from the system's
    /// process list.
    fn parent_id() -> Option<u32> {
        let me = std::process::id();
        // SAFETY: a snapshot handle of our own, read with entries of the
        // size they declare, closed once.
        unsafe {
            let snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
            if snapshot == INVALID_HANDLE_VALUE || snapshot.is_null() {
                return None;
            }
            let mut entry = PROCESSENTRY32W {
                dwSize: std::mem::size_of::<PROCESSENTRY32W>() as u32,
                ..Default::default()
            };
            let mut found = None;
            let mut more = Process32FirstW(snapshot, &mut entry) != 0;
            while more {
                if entry.th32ProcessID == me {
                    found = Some(entry.th32ParentProcessID);
                    break;
                }
                more = Process32NextW(snapshot, &mut entry) != 0;
            }
            CloseHandle(snapshot);
            found
        }
    }

    /// Exits when the parent process ends (a thread waits on it).
    pub fn end_with_parent() {
        let Some(parent) = parent_id() else {
            return;
        };
        // SAFETY: a handle of our own to wait on; an id no process has
        // any more gives a null handle, and nothing is waited on.
        let handle = unsafe { OpenProcess(PROCESS_SYNCHRONIZE, 0, parent) };
        if handle.is_null() {
            return;
        }
        let handle = handle as usize;
        let _ = std::thread::Builder::new().spawn(move || {
            // SAFETY: waiting on the handle opened above, never closed.
            unsafe {
                WaitForSingleObject(handle as HANDLE, INFINITE);
            }
            std::process::exit(0);
        });
    }

    /// A job object that ends its processes when closed.
    pub struct Job(HANDLE);

    // SAFETY: a job handle may be used and closed from any thread.
    unsafe impl Send for Job {}

    impl Job {
        /// A new kill-on-close job holding `child`, or `None` if Windows
        /// refuses one.
        pub fn holding(child: &Child) -> Option<Job> {
            // SAFETY: plain Win32 calls on handles this function owns or
            // borrows for the call; the limit information is a local of
            // the size given.
            unsafe {
                let handle = CreateJobObjectW(std::ptr::null(), std::ptr::null());
                if handle.is_null() {
                    return None;
                }
                let job = Job(handle);
                let mut info: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = std::mem::zeroed();
                info.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
                let set = SetInformationJobObject(
                    job.0,
                    JobObjectExtendedLimitInformation,
                    &info as *const _ as *const std::ffi::c_void,
                    std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
                );
                if set == 0 || AssignProcessToJobObject(job.0, child.as_raw_handle() as HANDLE) == 0
                {
                    return None;
                }
                Some(job)
            }
        }

        /// Ends every process in the job now.
        pub fn terminate(self) {
            // SAFETY: the handle is this job's own, open until drop.
            unsafe {
                TerminateJobObject(self.0, 1);
            }
        }
    }

    impl Drop for Job {
        fn drop(&mut self) {
            // SAFETY: closing the job's own handle once; kill-on-close ends
            // whatever it still holds.
            unsafe {
                CloseHandle(self.0);
            }
        }
    }
}

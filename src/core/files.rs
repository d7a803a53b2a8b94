//! Writing the user's files safely: a file is written whole to a temporary
//! file beside it, flushed to disk, then renamed over the target, so that a
//! failed write (a full disk, a killed process) leaves the earlier file as
//! it was; a target that is not a regular file (a FIFO, a device, a
//! folder) is refused rather than written into, and one the user made
//! read-only is refused rather than replaced.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Why a file was not written.
#[derive(Debug)]
pub enum WriteError {
    /// The target exists and is not a regular file.
    NotRegular(PathBuf),
    /// The target is a file with no write permission for anyone (made
    /// read-only): replacing it would undo its owner's protection.
    ReadOnly(PathBuf),
    /// The writing or the renaming failed; nothing was replaced.
    Io(PathBuf, std::io::Error),
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            WriteError::NotRegular(p) => write!(f, "{}: not a regular file", p.display()),
            WriteError::ReadOnly(p) => write!(
                f,
                "{}: the file is read-only; not replaced (make it writable, or write elsewhere)",
                p.display()
            ),
            WriteError::Io(p, e) => write!(f, "cannot write {}: {e}", p.display()),
        }
    }
}

impl std::error::Error for WriteError {}

/// The temporary file beside `path` a write goes through.
fn temporary(path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

/// An existing `path` that is not a regular file, or is read-only, is
/// not a target to replace.
fn refuse_target(path: &Path) -> Result<(), WriteError> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if !meta.is_file() => Err(WriteError::NotRegular(path.to_path_buf())),
        Ok(meta) if meta.permissions().readonly() => Err(WriteError::ReadOnly(path.to_path_buf())),
        _ => Ok(()),
    }
}

/// Whether [`write_atomically`] could write `path` now, checked without
/// touching it: `path` is a regular file or nothing (a link, a folder, a
/// FIFO or a device is refused), and a file can be made beside it (made
/// and removed again). For a caller with long work before its write.
pub fn check_writable(path: &Path) -> Result<(), WriteError> {
    refuse_target(path)?;
    let temp = temporary(path);
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .map_err(|e| WriteError::Io(path.to_path_buf(), e))?;
    let _ = std::fs::remove_file(&temp);
    Ok(())
}

/// Writes `bytes` to `path` whole or not at all.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    refuse_target(path)?;
    let temp = temporary(path);
    let io = |e| WriteError::Io(path.to_path_buf(), e);
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .and_then(|mut f| f.write_all(bytes).and_then(|_| f.sync_all()))
        .and_then(|_| std::fs::rename(&temp, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(io(e));
    }
    Ok(())
}

/// Whether `a` and `b` name the same existing file (through links or other
/// spellings of the path).
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_replaced_whole_and_special_files_are_refused() {
        let dir = std::env::temp_dir().join(format!("kosumi-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let target = dir.join("a.sgf");
        std::fs::write(&target, "old").unwrap();
        write_atomically(&target, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        // No temporary file is left behind.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        // A folder is not a file to write, nor a link, checked before
        // any work as at the write.
        let err = write_atomically(&dir, b"x").unwrap_err();
        assert!(matches!(
            check_writable(&dir),
            Err(WriteError::NotRegular(_))
        ));
        check_writable(&target).unwrap();
        assert!(check_writable(&dir.join("no-such-folder").join("c.sgf")).is_err());
        #[cfg(unix)]
        {
            let link = dir.join("link.sgf");
            std::os::unix::fs::symlink(&target, &link).unwrap();
            assert!(matches!(
                check_writable(&link),
                Err(WriteError::NotRegular(_))
            ));
            std::fs::remove_file(&link).unwrap();
        }
        assert!(matches!(err, WriteError::NotRegular(_)), "{err}");
        // A write that cannot happen leaves the old file.
        let missing = dir.join("no-such-folder").join("b.sgf");
        assert!(write_atomically(&missing, b"x").is_err());
        assert!(same_file(&target, &dir.join(".").join("a.sgf")));
        // A file made read-only is refused, checked and at the write, and
        // left as it was.
        let mut locked = std::fs::metadata(&target).unwrap().permissions();
        locked.set_readonly(true);
        std::fs::set_permissions(&target, locked.clone()).unwrap();
        assert!(matches!(
            check_writable(&target),
            Err(WriteError::ReadOnly(_))
        ));
        let err = write_atomically(&target, b"newer").unwrap_err();
        assert!(err.to_string().contains("read-only"), "{err}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        #[allow(clippy::permissions_set_readonly_false)]
        locked.set_readonly(false);
        std::fs::set_permissions(&target, locked).unwrap();
        assert!(!same_file(&target, &missing));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

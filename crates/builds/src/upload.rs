//! Archives handed in are read by `arbiter_programs::upload`, which refuses everything hostile.

pub use arbiter_programs::upload::{UploadError, UploadKind, UploadLimits, unpack_upload};

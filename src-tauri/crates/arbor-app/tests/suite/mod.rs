mod host;
mod import;
mod soak;

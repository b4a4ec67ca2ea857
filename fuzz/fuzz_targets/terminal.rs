//! libFuzzer entry for [`bastion_fuzz::terminal`] (its docs state the properties).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bastion_fuzz::terminal(data));

//! libFuzzer entry for [`bastion_fuzz::url_gate`] (its docs state the properties).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bastion_fuzz::url_gate(data));

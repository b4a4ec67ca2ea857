//! libFuzzer entry for [`bastion_fuzz::contract`] (its docs state the properties).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| bastion_fuzz::contract(data));

//! OWNER: helper "unicode+terminal".

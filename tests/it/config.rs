//! Settings: built-in defaults with `LOUNGE_*` environment overrides.

use lounge::ayo::Preset;
use lounge::config::Settings;

fn env(pairs: &[(&str, &str)]) -> config::Environment {
    let map = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    Settings::environment().source(Some(map))
}

#[test]
fn the_defaults_come_from_config_default_toml() {
    let settings = Settings::load_from(env(&[])).unwrap();
    assert_eq!(settings.default_preset().unwrap(), Preset::Lagos);
}

#[test]
fn lounge_environment_variables_override_the_defaults() {
    let settings = Settings::load_from(env(&[("LOUNGE_AYO__RULES", "kontest")])).unwrap();
    assert_eq!(settings.default_preset().unwrap(), Preset::Kontest);
}

#[test]
fn a_bad_setting_is_refused_at_load_with_its_name() {
    let err = Settings::load_from(env(&[("LOUNGE_AYO__RULES", "abapa")])).unwrap_err();
    assert!(err.to_string().contains("ayo.rules"), "{err}");
}

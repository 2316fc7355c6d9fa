"""The installed distribution's metadata names the project's licence (Apache-2.0, LICENSE at the root)."""

import importlib.metadata


def test_installed_metadata_names_the_apache_license():
    meta = importlib.metadata.metadata("schedd")
    assert meta["License"] == "Apache-2.0"
    assert "License :: OSI Approved :: Apache Software License" in meta.get_all("Classifier")
    files = [str(f) for f in importlib.metadata.files("schedd") or []]
    licence = [f for f in files if f.endswith("LICENSE")]
    assert licence, files
    text = importlib.metadata.distribution("schedd").locate_file(licence[0]).read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text

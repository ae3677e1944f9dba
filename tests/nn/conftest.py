"""Each nn test starts from the same state: a fixed seed, fresh layer names, no global step."""
import pytest

import minieager as me
from minieager.nn.optimizers import reset_global_step


@pytest.fixture(autouse=True)
def fresh_state():
    me.random.set_seed(0)
    me.keras.backend.clear_session()
    reset_global_step()
    yield

"""The opt-in script runner behind ``POST /otp/scripting/run`` (see :mod:`.runner`)."""

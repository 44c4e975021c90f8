"""`python -m pyaclnn COMMAND`: prefix, info, cc, samples (see pyaclnn/_toolkit.py, or `python -m pyaclnn -h`)."""
import sys

from ._toolkit import main

sys.exit(main())

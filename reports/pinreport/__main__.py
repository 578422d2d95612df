import sys

from pinreport.start import main  # the signal handlers before anything else (start.py)

sys.exit(main())

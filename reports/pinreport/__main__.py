import sys

from pinreport.cli import main

sys.exit(main())

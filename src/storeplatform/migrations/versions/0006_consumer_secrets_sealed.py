"""consumer secrets kept sealed for signature methods; existing keys are Basic-only

Revision ID: sp0006
Revises: sp0005

Until now only a keyed hash of each consumer secret was stored, which Basic authentication
needs; a signature method (OAuth 1.0a) needs the secret itself. New keys keep it sealed
(AES-GCM under a key derived from ``storeplatform.secret``). The secrets of existing keys cannot
be recovered from their hashes: their ``secret_sealed`` stays NULL, which marks them Basic-only
(``storeplatform consumer-key list`` says so).
"""
import sqlalchemy as sa
from alembic import op

revision = "sp0006"
down_revision = "sp0005"
branch_labels = None
depends_on = None


def upgrade():
    op.add_column("consumer_keys", sa.Column("secret_sealed", sa.String(200), nullable=True))


def downgrade():
    with op.batch_alter_table("consumer_keys") as batch:
        batch.drop_column("secret_sealed")

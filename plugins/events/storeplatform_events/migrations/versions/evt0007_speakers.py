"""speakers: the detail table of the alternate variant's speakers

Revision ID: evt0007
Revises: evt0006

Speakers are host posts of type ``evt_speaker`` (name, bio, status and trash from the content
base), their own fields one row per post, as venues and organizers keep theirs. Both variants
run on this schema: a site switching ``events.api_variant`` migrates nothing.
"""
import sqlalchemy as sa
from alembic import op

revision = 'evt0007'
down_revision = 'evt0006'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('evt_speakers',
    sa.Column('post_id', sa.Integer(), nullable=False),
    sa.Column('job_title', sa.String(length=200), nullable=False),
    sa.Column('company', sa.String(length=200), nullable=False),
    sa.Column('email', sa.String(length=200), nullable=False),
    sa.Column('website', sa.Text(), nullable=False),
    sa.Column('photo', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['post_id'], ['posts.id'], name=op.f('fk_evt_speakers_post_id_posts'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('post_id', name=op.f('pk_evt_speakers'))
    )


def downgrade():
    op.drop_table('evt_speakers')

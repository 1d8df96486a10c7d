#!/usr/bin/perl
# Registers a TOTP secret (base32) for a user in LemonLDAP::NG's persistent sessions, where the
# portal keeps its second factors (_2fDevices), as its own self-registration would (the test
# cannot scan a QR code). Usage, with LLNG_DEFAULTCONFFILE set: register-totp.pl UID BASE32SECRET
use strict;
use warnings;
use JSON qw(to_json);
use Lemonldap::NG::Common::Conf;
use Lemonldap::NG::Common::Session;
use Lemonldap::NG::Common::Util qw(getPSessionID);

my ( $uid, $secret ) = @ARGV;
die "usage: register-totp.pl UID BASE32SECRET\n" unless $uid && $secret;
my $conf = Lemonldap::NG::Common::Conf->new()->getConf()
  or die "no configuration: $Lemonldap::NG::Common::Conf::msg\n";
my $session = Lemonldap::NG::Common::Session->new(
    {
        storageModule        => $conf->{persistentStorage},
        storageModuleOptions => $conf->{persistentStorageOptions},
        id                   => getPSessionID($uid),
        force                => 1,
        kind                 => 'Persistent',
    }
);
die "persistent session: $session->{error}\n" if $session->error;
my $devices = [ { type => 'TOTP', name => 'provider-suite', _secret => $secret, epoch => time } ];
$session->update( { _session_uid => $uid, _2fDevices => to_json($devices) } );
die "persistent session: $session->{error}\n" if $session->error;
print "registered TOTP for $uid\n";

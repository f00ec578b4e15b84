"""An encrypted send through SMSGate's published Python client and its Encryptor.

Usage: python encrypted.py <base URL> <API key> <passphrase> <text> <phone number>
The client encrypts the text and the number with the passphrase (is_encrypted), sends them, reads
the state back and decrypts the numbers in it; a client without the Encryptor refuses to read it.
Prints what it saw as one JSON object.
"""

import json
import sys

from android_sms_gateway import client, domain
from android_sms_gateway.encryption import Encryptor


def main() -> None:
    base_url, key, passphrase, text, number = sys.argv[1:6]
    out = {}
    with client.APIClient("integrator@example.com", key, base_url=base_url, encryptor=Encryptor(passphrase)) as api:
        sent = api.send(domain.Message(phone_numbers=[number], text_message=domain.TextMessage(text=text), id="py-secret"))
        out["sent"] = {"id": sent.id, "state": sent.state.value, "recipients": [r.phone_number for r in sent.recipients]}
        state = api.get_state("py-secret")
        out["state"] = {"id": state.id, "recipients": [r.phone_number for r in state.recipients]}
    with client.APIClient("integrator@example.com", key, base_url=base_url) as api:
        try:
            api.get_state("py-secret")
            out["without_encryptor"] = "read"
        except ValueError as error:
            out["without_encryptor"] = str(error)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
